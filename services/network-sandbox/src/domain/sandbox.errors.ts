import { AppError, type ErrorDetail } from '@social/errors';

// The sandbox answers in the project's error body ({error: {code, message, details}}), with the
// status codes real networks use, so the adapter's classification is exercised as in production.

export const accountNotFound = (net: string, id: string) => new AppError('ACCOUNT_NOT_FOUND', 404, `No ${net} account ${id}.`);

export const profileNotFound = (net: string, id: string) => new AppError('PROFILE_NOT_FOUND', 404, `No public ${net} profile ${id}.`);

export const postNotFound = (key: string) =>
  new AppError('POST_NOT_FOUND', 404, `No post was published with idempotency key ${key} within the key window.`);

export const networkNotFound = (net: string) => new AppError('NETWORK_NOT_FOUND', 404, `No network ${net}.`);

export const notSupported = (what: string) => new AppError('NOT_SUPPORTED', 400, `${what} is not supported.`);

export const tokenMissing = () => new AppError('TOKEN_MISSING', 401, 'Send the access token as "Authorization: Bearer <token>".');

export const tokenInvalid = () => new AppError('TOKEN_INVALID', 401, 'The access token is not valid for this account.');

export const tokenRevoked = () =>
  new AppError('TOKEN_REVOKED', 401, 'The access token was revoked by the account owner; reconnect the profile.');

export const notConnectable = (id: string) =>
  new AppError('ACCOUNT_NOT_CONNECTABLE', 403, `Account ${id} is not an account a workspace can connect.`);

export const contentRejected = (details: ErrorDetail[], message = 'The network refused the content of the post.') =>
  new AppError('CONTENT_REJECTED', 422, message, { details });

export const idempotencyKeyReused = (key: string) =>
  new AppError('IDEMPOTENCY_KEY_REUSED', 409, `Idempotency key ${key} was already used for a post with different content.`);

/** A failure switched on through the admin API: answered without error logs, it is expected. */
export class InjectedFailure extends AppError {}

export const injectedRateLimit = (retryAfterSeconds: number) =>
  new InjectedFailure('RATE_LIMITED', 429, 'Too many requests; slow down.', {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

export const injectedServerError = (status: number) =>
  new InjectedFailure(
    status === 503 ? 'SERVICE_UNAVAILABLE' : 'SERVER_ERROR',
    status,
    'The network had a temporary problem; try again later.',
    status === 503 ? { headers: { 'Retry-After': '1' } } : {},
  );

/**
 * The network gave up on a publish that would take longer than it allows: nothing was stored. Its
 * gateway answers 504 when the bound passes, as real gateways do.
 */
export const processingAbandoned = (maxMs: number) =>
  new InjectedFailure('PROCESSING_TIMEOUT', 504, `The network could not process the post within ${maxMs} ms; nothing was published.`);

export const injectedTokenRevoked = () =>
  new InjectedFailure('TOKEN_REVOKED', 401, 'The access token was revoked by the account owner; reconnect the profile.');

export const injectedRejection = () =>
  new InjectedFailure('CONTENT_REJECTED', 422, 'The network refused the content of the post (community standards).', {
    details: [{ path: '', message: 'rejected by the network' }],
  });
