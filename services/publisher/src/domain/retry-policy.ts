import { retryDelay } from '@social/events';

export interface RetryPolicy {
  baseMs: number;
  /** The longest backoff between two tries. */
  maxMs: number;
  /** The longest wait a network's Retry-After is honoured for; it asked for longer, it is tried then. */
  retryAfterMaxMs: number;
}

/**
 * How long to wait before the next try after `tries` tries: exponential backoff with jitter
 * (spreads the retries of many jobs that failed together), at least what the network asked for
 * (Retry-After), and never more than the caps.
 */
export function nextTry(tries: number, p: RetryPolicy, retryAfterMs = 0): number {
  const backoff = p.baseMs / 2 + retryDelay(tries, { baseMs: p.baseMs, maxMs: p.maxMs });
  return Math.max(Math.min(backoff, p.maxMs), Math.min(retryAfterMs, p.retryAfterMaxMs));
}
