import { AppError, ErrorCodes, toAppError } from '@social/errors';
import { createLogger, errorFields } from '@social/logger';

const log = createLogger('grpc:neighbours');

/**
 * Whatever a neighbour's failure was (down, too slow, misconfigured auth), the API client can only
 * retry later: a 503 naming the neighbour, never a 500 and never the neighbour's own 401.
 */
export function neighbourFailure(neighbour: string, method: string, err: unknown): AppError {
  const cause = toAppError(err);
  log.warn('neighbour call failed', { neighbour, method, code: cause.code, status: cause.status, ...errorFields(err) });
  const slow = cause.code === ErrorCodes.DEADLINE_EXCEEDED;
  return new AppError(
    ErrorCodes.SERVICE_UNAVAILABLE,
    503,
    `The ${neighbour} service ${slow ? 'did not answer in time' : 'is temporarily unavailable'}; retry in a moment.`,
    { headers: { 'Retry-After': '1' }, cause: err },
  );
}
