import { AppError, toAppError, validationError } from './app-error';
import { errorBody, fromErrorBody } from './error-body';
import { grpcToHttp, httpToGrpc } from './grpc-status';

describe('errors', () => {
  it('renders the documented error body with details and request id', () => {
    const err = validationError([{ path: '/name', message: 'must have at least 1 character' }]);
    expect(errorBody(err, 'req-1')).toEqual({
      error: {
        code: 'VALIDATION_FAILED',
        message: 'The request is not valid.',
        details: [{ path: '/name', message: 'must have at least 1 character' }],
        requestId: 'req-1',
      },
    });
  });

  it('hides unknown errors behind a 500 INTERNAL', () => {
    const err = toAppError(new TypeError('secret internals'));
    expect(err.status).toBe(500);
    expect(err.code).toBe('INTERNAL');
    expect(err.message).not.toContain('secret');
  });

  it('round-trips an error body received from another service', () => {
    const original = new AppError('INVALID_TRANSITION', 409, 'no', { details: [{ path: '/x', message: 'y' }] });
    const back = fromErrorBody(409, errorBody(original, 'r'));
    expect(back).toMatchObject({ code: 'INVALID_TRANSITION', status: 409, details: [{ path: '/x', message: 'y' }] });
  });

  it.each([
    [400, 3],
    [401, 16],
    [403, 7],
    [404, 5],
    [409, 9],
    [429, 8],
    [503, 14],
    [500, 13],
  ])('maps HTTP %i to gRPC %i and back', (http, grpc) => {
    expect(httpToGrpc(http)).toBe(grpc);
    expect(grpcToHttp(grpc)).toBe(http);
  });
});
