import type * as grpc from '@grpc/grpc-js';
import { AppError, ErrorCodes, GRPC_ERROR_CODE_KEY, GRPC_ERROR_DETAILS_KEY, GrpcCode, grpcToHttp, type ErrorDetail } from '@social/errors';

export const REQUEST_ID_KEY = 'x-request-id';
export const AUTHORIZATION_KEY = 'authorization';
/**
 * The HTTP status of the AppError. The gRPC code alone is lossy (413 and 400 are both
 * INVALID_ARGUMENT), and callers often pass a downstream error straight to their HTTP response.
 */
export const GRPC_ERROR_STATUS_KEY = 'x-error-status';

export function firstString(metadata: grpc.Metadata | undefined, key: string): string | undefined {
  const value = metadata?.get(key)[0];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Trailing metadata that lets the caller rebuild the same AppError. */
export function errorMetadata(err: AppError, metadata: grpc.Metadata): grpc.Metadata {
  metadata.set(GRPC_ERROR_CODE_KEY, err.code);
  metadata.set(GRPC_ERROR_STATUS_KEY, String(err.status));
  if (err.details.length > 0) {
    metadata.set(GRPC_ERROR_DETAILS_KEY, Buffer.from(JSON.stringify(err.details)));
  }
  return metadata;
}

// The code a status means when the server did not say (it failed before our handler ran, or it is
// not one of ours).
const CODE_BY_HTTP_STATUS: Record<number, string> = {
  400: ErrorCodes.VALIDATION_FAILED,
  401: ErrorCodes.UNAUTHENTICATED,
  403: ErrorCodes.FORBIDDEN,
  404: ErrorCodes.NOT_FOUND,
  409: ErrorCodes.CONFLICT,
  429: ErrorCodes.RATE_LIMITED,
  503: ErrorCodes.SERVICE_UNAVAILABLE,
  504: ErrorCodes.DEADLINE_EXCEEDED,
};

/** The AppError a failed call means, from the status and trailing metadata the client received. */
export function errorFromStatus(status: grpc.StatusObject | grpc.ServiceError, target: string): AppError {
  const metadata = status.metadata;
  const code = firstString(metadata, GRPC_ERROR_CODE_KEY);
  if (code) {
    const sent = Number(firstString(metadata, GRPC_ERROR_STATUS_KEY));
    const httpStatus = Number.isInteger(sent) && sent >= 400 ? sent : grpcToHttp(status.code);
    return new AppError(code, httpStatus, status.details, { details: readDetails(metadata), cause: status });
  }
  switch (status.code) {
    case GrpcCode.DEADLINE_EXCEEDED:
      return new AppError(ErrorCodes.DEADLINE_EXCEEDED, 504, `${target} did not answer in time.`, { cause: status });
    // Our client never cancels its own calls, so CANCELLED means the server cut the call (a forced
    // shutdown): as retryable as a server that is not there.
    case GrpcCode.CANCELLED:
    case GrpcCode.UNAVAILABLE:
      return new AppError(ErrorCodes.SERVICE_UNAVAILABLE, 503, `${target} is temporarily unavailable; retry in a moment.`, {
        headers: { 'Retry-After': '1' },
        cause: status,
      });
    default: {
      const httpStatus = grpcToHttp(status.code);
      return new AppError(CODE_BY_HTTP_STATUS[httpStatus] ?? ErrorCodes.INTERNAL, httpStatus, status.details || `${target} failed.`, {
        cause: status,
      });
    }
  }
}

function readDetails(metadata: grpc.Metadata): ErrorDetail[] {
  const raw = metadata.get(GRPC_ERROR_DETAILS_KEY)[0];
  if (!raw) return [];
  try {
    const parsed: unknown = JSON.parse(raw.toString());
    return Array.isArray(parsed) ? (parsed as ErrorDetail[]) : [];
  } catch {
    return [];
  }
}
