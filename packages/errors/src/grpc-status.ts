import { AppError } from './app-error';

// Numeric gRPC status codes (kept here so the errors package does not depend on grpc-js).
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export function httpToGrpc(status: number): number {
  switch (status) {
    case 400:
    case 413:
    case 415:
      return GrpcCode.INVALID_ARGUMENT;
    case 401:
      return GrpcCode.UNAUTHENTICATED;
    case 403:
      return GrpcCode.PERMISSION_DENIED;
    case 404:
      return GrpcCode.NOT_FOUND;
    case 409:
      return GrpcCode.FAILED_PRECONDITION;
    case 429:
      return GrpcCode.RESOURCE_EXHAUSTED;
    case 503:
      return GrpcCode.UNAVAILABLE;
    case 504:
      return GrpcCode.DEADLINE_EXCEEDED;
    default:
      return GrpcCode.INTERNAL;
  }
}

export function grpcToHttp(code: number): number {
  switch (code) {
    case GrpcCode.INVALID_ARGUMENT:
      return 400;
    case GrpcCode.UNAUTHENTICATED:
      return 401;
    case GrpcCode.PERMISSION_DENIED:
      return 403;
    case GrpcCode.NOT_FOUND:
      return 404;
    case GrpcCode.ALREADY_EXISTS:
    case GrpcCode.FAILED_PRECONDITION:
    case GrpcCode.ABORTED:
      return 409;
    case GrpcCode.RESOURCE_EXHAUSTED:
      return 429;
    case GrpcCode.UNAVAILABLE:
      return 503;
    case GrpcCode.DEADLINE_EXCEEDED:
      return 504;
    default:
      return 500;
  }
}

/** gRPC metadata keys carrying the AppError across a call, so the caller rebuilds the same error. */
export const GRPC_ERROR_CODE_KEY = 'x-error-code';
export const GRPC_ERROR_DETAILS_KEY = 'x-error-details-bin';

export function grpcStatusOf(err: AppError): number {
  return httpToGrpc(err.status);
}
