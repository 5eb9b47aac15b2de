import type { IncomingHttpHeaders } from 'node:http';
import type { NetworkCode } from '../catalog/network-codes';
import { NetworkError, type NetworkOperation } from './network-error';

export interface CallContext {
  net: NetworkCode;
  operation: NetworkOperation;
}

/** A retry hint when a 429 carries no usable Retry-After. */
export const DEFAULT_RETRY_AFTER_MS = 1000;

/** Retry-After as delta-seconds or an HTTP date (RFC 9110 10.2.3); undefined when absent or bad. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

interface UpstreamBody {
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

function upstreamError(body: unknown) {
  const e = (body as UpstreamBody | undefined)?.error;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = typeof e?.message === 'string' ? e.message : undefined;
  const details = Array.isArray(e?.details)
    ? (e.details as { path?: unknown; message?: unknown }[])
        .filter((d) => typeof d?.path === 'string' && typeof d?.message === 'string')
        .map((d) => ({ path: d.path as string, message: d.message as string }))
    : [];
  return { code, message, details };
}

/**
 * Classifies a non-2xx answer of a network. For a publish, what matters is whether the network may
 * have acted: 429, 503 and 408 are answered before any work (retry), 500, 502, 504 and any other 5xx
 * may hide a stored post (reconcile first). Reads are simply retried on any 5xx.
 */
export function errorFromResponse(ctx: CallContext, status: number, headers: IncomingHttpHeaders, body: unknown): NetworkError {
  const up = upstreamError(body);
  const base = { net: ctx.net, operation: ctx.operation, upstreamStatus: status, upstreamCode: up.code, details: up.details };
  const said = up.message ? `: ${up.message}` : '';
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(headers['retry-after']) ?? DEFAULT_RETRY_AFTER_MS;
    return new NetworkError('RATE_LIMITED', `${ctx.net} rate limit reached${said}`, { ...base, retryAfterMs });
  }
  if (status === 401) return new NetworkError('AUTH_REVOKED', `${ctx.net} refused the access token${said}`, base);
  if (status === 404) return new NetworkError('NOT_FOUND', `${ctx.net} did not find it${said}`, base);
  if (status === 409 && up.code === 'IDEMPOTENCY_KEY_REUSED') {
    return new NetworkError('DUPLICATE', `${ctx.net} already holds a post with other content under this key${said}`, base);
  }
  const retryAfterMs = parseRetryAfter(headers['retry-after']);
  const hint = retryAfterMs !== undefined ? { retryAfterMs } : {};
  // 503 is the network saying it did no work; any other server error may come after the post was stored.
  if (ctx.operation === 'publish' && status >= 500 && status !== 503) {
    return new NetworkError('UNKNOWN_OUTCOME', `${ctx.net} failed with ${status} while publishing; the post may exist${said}`, {
      ...base,
      ...hint,
    });
  }
  if (status === 408 || status >= 500) {
    return new NetworkError('TRANSIENT', `${ctx.net} failed with ${status}${said}`, { ...base, ...hint });
  }
  return new NetworkError('REJECTED', `${ctx.net} rejected the request (${status})${said}`, base);
}

export interface TransportState {
  /** The whole request left this process, so the network may have acted on it. */
  sent: boolean;
  timedOut: boolean;
}

/** Classifies a call that got no (complete) answer. */
export function errorFromTransport(ctx: CallContext, err: unknown, state: TransportState): NetworkError {
  const reason = state.timedOut ? 'timed out' : `failed (${(err as { code?: string })?.code ?? (err as Error)?.message ?? 'error'})`;
  const base = { net: ctx.net, operation: ctx.operation, cause: err };
  if (ctx.operation === 'publish' && state.sent) {
    return new NetworkError('UNKNOWN_OUTCOME', `publish to ${ctx.net} ${reason} after it was sent; reconcile before retrying`, base);
  }
  return new NetworkError('TRANSIENT', `call to ${ctx.net} ${reason}`, base);
}
