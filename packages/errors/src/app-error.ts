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
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  EXPECTATION_FAILED: 'EXPECTATION_FAILED',
  HEADERS_TOO_LARGE: 'HEADERS_TOO_LARGE',
  BAD_REQUEST: 'BAD_REQUEST',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  DEADLINE_EXCEEDED: 'DEADLINE_EXCEEDED',
  INTERNAL: 'INTERNAL',
} as const;

export const validationError = (details: ErrorDetail[], message = 'The request is not valid.') =>
  new AppError(ErrorCodes.VALIDATION_FAILED, 400, message, { details });

export const notFound = (what: string) => new AppError(ErrorCodes.NOT_FOUND, 404, `${what} was not found in this workspace.`);

export const unauthenticated = () =>
  new AppError(ErrorCodes.UNAUTHENTICATED, 401, 'Missing or invalid credentials: send a valid X-API-ID and X-API-KEY pair.');

export const serviceUnavailable = (what: string) =>
  new AppError(ErrorCodes.SERVICE_UNAVAILABLE, 503, `${what} is temporarily unavailable; retry in a moment.`, {
    headers: { 'Retry-After': '1' },
  });

/** The code a client error of an HTTP library means (body-parser, express, Node's HTTP server). */
const CODE_OF_CLIENT_STATUS: Record<number, string> = {
  400: ErrorCodes.BAD_REQUEST,
  401: ErrorCodes.UNAUTHENTICATED,
  403: ErrorCodes.FORBIDDEN,
  404: ErrorCodes.NOT_FOUND,
  405: ErrorCodes.METHOD_NOT_ALLOWED,
  413: ErrorCodes.PAYLOAD_TOO_LARGE,
  415: ErrorCodes.UNSUPPORTED_MEDIA_TYPE,
  417: ErrorCodes.EXPECTATION_FAILED,
  431: ErrorCodes.HEADERS_TOO_LARGE,
};

/**
 * Turns anything thrown into an AppError; unknown errors become a 500 that hides internals. An
 * error an HTTP library raises about the request (http-errors: a 4xx `status`, e.g. body-parser's
 * unsupported encoding or charset, or express's undecodable path parameter) stays a 4xx.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isAppErrorLike(err)) {
    return new AppError(err.code, err.status, err.message, { details: err.details ?? [] });
  }
  const status = clientStatusOf(err);
  if (status !== undefined) {
    const e = err as { message?: unknown; expose?: unknown };
    // http-errors marks messages safe to show with `expose`; others get a generic one.
    const message = e.expose === true && typeof e.message === 'string' ? e.message : 'The request could not be read.';
    return new AppError(CODE_OF_CLIENT_STATUS[status] ?? ErrorCodes.BAD_REQUEST, status, message, { cause: err });
  }
  return new AppError(ErrorCodes.INTERNAL, 500, 'Internal error; retry later or report the request id.', {
    cause: err,
  });
}

function clientStatusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { status?: unknown; statusCode?: unknown };
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status < 500 ? status : undefined;
}

function isAppErrorLike(err: unknown): err is { code: string; status: number; message: string; details?: ErrorDetail[] } {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as Record<string, unknown>;
  return e['name'] === 'AppError' && typeof e['code'] === 'string' && typeof e['status'] === 'number';
}
