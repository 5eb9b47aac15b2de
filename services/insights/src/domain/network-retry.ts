import { retryDelay } from '@social/events';
import { isNetworkError } from '@social/networks';
import type { Logger } from '@social/logger';

export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  maxMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Calls the network, retrying retryable failures (rate limits, 5xx, timeouts) with exponential
 * backoff and full jitter, never sooner than the network's Retry-After (capped at maxMs). Each
 * retry is logged; after the last attempt the error goes to the caller (the job is redelivered).
 */
export async function withNetworkRetries<T>(
  what: Record<string, unknown>,
  policy: RetryPolicy,
  log: Logger,
  fn: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isNetworkError(err) || !err.retryable || attempt >= policy.attempts) throw err;
      const delayMs = Math.min(policy.maxMs, Math.max(err.retryAfterMs ?? 0, retryDelay(attempt, policy)));
      log.warn('network call failed; retrying', {
        ...what,
        attempt,
        of: policy.attempts,
        delayMs,
        kind: err.kind,
        upstreamStatus: err.upstreamStatus,
      });
      await sleep(delayMs);
    }
  }
}
