export interface ErrorDetail {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  cause?: unknown;
  /** A catastrophic error means the process is in an unknown state and should be restarted. */
  isCatastrophic?: boolean;
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
}

/**
 * The one error class of the system. Codes are namespaced strings because they cross process
 * boundaries (HTTP bodies, gRPC metadata, event payloads) where `instanceof` means nothing.
 */
export class AppError extends Error {
  readonly details: ErrorDetail[];
  readonly isCatastrophic: boolean;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.details = options.details ?? [];
    this.isCatastrophic = options.isCatastrophic ?? false;
    this.headers = options.headers ?? {};
  }
}

export const ErrorCodes = {
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  INVALID_TRANSITION: 'INVALID_TRANSITION',
  PROTECTED_STAGE: 'PROTECTED_STAGE',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED: 'RATE_LIMITED',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  DEADLINE_EXCEEDED: 'DEADLINE_EXCEEDED',
  INTERNAL: 'INTERNAL',
} as const;

export const validationError = (details: ErrorDetail[], message = 'The request is not valid.') =>
  new AppError(ErrorCodes.VALIDATION_FAILED, 400, message, { details });

export const notFound = (what: string) =>
  new AppError(ErrorCodes.NOT_FOUND, 404, `${what} was not found in this workspace.`);

export const unauthenticated = () =>
  new AppError(
    ErrorCodes.UNAUTHENTICATED,
    401,
    'Missing or invalid credentials: send a valid X-API-ID and X-API-KEY pair.',
  );

export const serviceUnavailable = (what: string) =>
  new AppError(ErrorCodes.SERVICE_UNAVAILABLE, 503, `${what} is temporarily unavailable; retry in a moment.`, {
    headers: { 'Retry-After': '1' },
  });

/** Turns anything thrown into an AppError; unknown errors become a 500 that hides internals. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isAppErrorLike(err)) {
    return new AppError(err.code, err.status, err.message, { details: err.details ?? [] });
  }
  return new AppError(ErrorCodes.INTERNAL, 500, 'Internal error; retry later or report the request id.', {
    cause: err,
  });
}

function isAppErrorLike(
  err: unknown,
): err is { code: string; status: number; message: string; details?: ErrorDetail[] } {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as Record<string, unknown>;
  return (
    e['name'] === 'AppError' && typeof e['code'] === 'string' && typeof e['status'] === 'number'
  );
}
