import { AppError } from '@social/errors';
import type { NetworkCode } from '../catalog/network-codes';

/**
 * How a call to a network failed, as the caller needs to react:
 * - RATE_LIMITED: 429; the network did not act. Wait `retryAfterMs`, then retry.
 * - TRANSIENT: the network did not act: 503 (answered before any work), 408, a call that never left
 *   this process, and for reads any 5xx, timeout or connection error. Retry with backoff.
 * - UNKNOWN_OUTCOME: a publish that may have been stored: 500, 502, 504 (and other 5xx but 503), an
 *   unreadable 2xx, or a timeout or reset after the request was sent. Reconcile before anything else
 *   (lookupPublished where the network keeps keys, recentPosts otherwise); never re-post blindly.
 * - DUPLICATE: 409 IDEMPOTENCY_KEY_REUSED: the network already holds a post under this key, with other
 *   content (e.g. other signed media URLs). Not retryable under this key.
 * - AUTH_REVOKED: the token is invalid, expired or revoked; the profile must be reconnected.
 * - REJECTED: the network refused the request or its content (400, 403, 422, ...); retrying cannot help.
 * - NOT_FOUND: the account, profile or post does not exist (or is not visible).
 */
export type NetworkErrorKind = 'RATE_LIMITED' | 'TRANSIENT' | 'UNKNOWN_OUTCOME' | 'DUPLICATE' | 'AUTH_REVOKED' | 'REJECTED' | 'NOT_FOUND';

export type NetworkOperation =
  | 'publish'
  | 'lookupPublished'
  | 'searchProfiles'
  | 'profileInfo'
  | 'dailyMetrics'
  | 'postMetrics'
  | 'recentPosts'
  | 'connectAccount'
  | 'listConnectableAccounts';

const RETRYABLE: Record<NetworkErrorKind, boolean> = {
  RATE_LIMITED: true,
  TRANSIENT: true,
  // Retryable only after reconciling: a retry with the same idempotency key is then safe.
  UNKNOWN_OUTCOME: true,
  DUPLICATE: false,
  AUTH_REVOKED: false,
  REJECTED: false,
  NOT_FOUND: false,
};

// If one escapes to an HTTP edge, the status says what happened upstream: busy (503), unanswered
// (504), a broken profile connection or a key already used (409), refused content (422), missing (404).
const STATUS: Record<NetworkErrorKind, number> = {
  RATE_LIMITED: 503,
  TRANSIENT: 503,
  UNKNOWN_OUTCOME: 504,
  DUPLICATE: 409,
  AUTH_REVOKED: 409,
  REJECTED: 422,
  NOT_FOUND: 404,
};

export interface NetworkErrorInit {
  net: NetworkCode;
  operation: NetworkOperation;
  retryAfterMs?: number;
  /** HTTP status the network answered with, when it answered. */
  upstreamStatus?: number;
  /** The network's own error code (e.g. CONTENT_REJECTED), when it gave one. */
  upstreamCode?: string;
  details?: { path: string; message: string }[];
  cause?: unknown;
}

/** The one error type adapters throw; codes are `NETWORK_<KIND>` so they survive process boundaries. */
export class NetworkError extends AppError {
  readonly retryable: boolean;
  readonly net: NetworkCode;
  readonly operation: NetworkOperation;
  readonly retryAfterMs: number | undefined;
  readonly upstreamStatus: number | undefined;
  readonly upstreamCode: string | undefined;

  constructor(
    readonly kind: NetworkErrorKind,
    message: string,
    init: NetworkErrorInit,
  ) {
    super(`NETWORK_${kind}`, STATUS[kind], message, {
      details: init.details ?? [],
      cause: init.cause,
      headers: init.retryAfterMs !== undefined ? { 'Retry-After': String(Math.ceil(init.retryAfterMs / 1000)) } : {},
    });
    this.name = 'NetworkError';
    this.retryable = RETRYABLE[kind];
    this.net = init.net;
    this.operation = init.operation;
    this.retryAfterMs = init.retryAfterMs;
    this.upstreamStatus = init.upstreamStatus;
    this.upstreamCode = init.upstreamCode;
  }
}

export function isNetworkError(err: unknown, kind?: NetworkErrorKind): err is NetworkError {
  return err instanceof NetworkError && (kind === undefined || err.kind === kind);
}
