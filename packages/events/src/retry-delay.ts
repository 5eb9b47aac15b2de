export interface RetryDelayOptions {
  baseMs: number;
  maxMs: number;
}

/**
 * Exponential backoff with full jitter: a random delay in [0, min(maxMs, baseMs * 2^(attempt-1))).
 * Full jitter spreads retries of many clients that failed together (a broker restart, a network
 * outage) instead of letting them hammer the server in lockstep. `attempt` starts at 1.
 */
export function retryDelay(attempt: number, { baseMs, maxMs }: RetryDelayOptions): number {
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  const ceiling = Math.min(maxMs, baseMs * 2 ** exponent);
  return Math.floor(Math.random() * ceiling);
}
