export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** The longest wait between attempts, whatever `Retry-After` asks (default 30 s). */
  maxDelayMs?: number;
  /** The first backoff when the server names no delay; doubled per attempt (default 250 ms). */
  baseDelayMs?: number;
}

const RETRIED_STATUSES = new Set([429, 503]);

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * A fetch that retries 429 and 503 (honouring `Retry-After`, bounded by maxDelayMs), a 409
 * `IDEMPOTENCY_KEY_IN_USE`, and a request whose connection failed when it is safe to send again
 * (a GET, or a request that carries an Idempotency-Key). Each attempt sends the same request,
 * headers included, so the Idempotency-Key stays the same across retries.
 */
export function retryingFetch(baseFetch: typeof fetch, opts: RetryOptions = {}): (req: Request) => Promise<Response> {
  const retries = opts.retries ?? 3;
  const maxDelayMs = opts.maxDelayMs ?? 30_000;
  const baseDelayMs = opts.baseDelayMs ?? 250;
  return async (request: Request) => {
    const safeToResend = request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
      const last = attempt >= retries;
      let res: Response;
      try {
        res = await baseFetch(last ? request : request.clone());
      } catch (err) {
        if (last || !safeToResend) throw err;
        await sleep(backoff);
        continue;
      }
      if (last || !(await isRetryable(res))) return res;
      const wait = Math.min(maxDelayMs, retryAfterMs(res.headers.get('retry-after')) ?? backoff);
      await res.body?.cancel();
      await sleep(wait);
    }
  };
}

async function isRetryable(res: Response): Promise<boolean> {
  if (RETRIED_STATUSES.has(res.status)) return true;
  if (res.status !== 409) return false;
  const body = (await res
    .clone()
    .json()
    .catch(() => undefined)) as { error?: { code?: string } } | undefined;
  return body?.error?.code === 'IDEMPOTENCY_KEY_IN_USE';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
