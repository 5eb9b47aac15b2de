import { AppError, ErrorDetail } from './app-error';

/** The error body of every non-2xx response (docs/decisions/0002-error-body.md). */
export interface ErrorBody {
  error: {
    code: string;
    message: string;
    details: ErrorDetail[];
    requestId: string | null;
  };
}

/** No error body lists more problems than this: a client fixes the first ones and tries again. */
export const MAX_ERROR_DETAILS = 20;

export function errorBody(err: AppError, requestId: string | undefined): ErrorBody {
  return {
    error: { code: err.code, message: err.message, details: err.details.slice(0, MAX_ERROR_DETAILS), requestId: requestId ?? null },
  };
}

/** Reads an error body received from another service back into an AppError. */
export function fromErrorBody(status: number, body: unknown): AppError {
  const e = (body as ErrorBody | undefined)?.error;
  if (e && typeof e.code === 'string') {
    return new AppError(e.code, status, e.message ?? '', { details: e.details ?? [] });
  }
  return new AppError('INTERNAL', status >= 400 ? status : 500, `Unexpected response (${status}).`);
}
