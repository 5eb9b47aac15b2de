import * as grpc from '@grpc/grpc-js';
import { AppError, GRPC_ERROR_DETAILS_KEY, grpcStatusOf } from '@social/errors';
import { errorFromStatus, errorMetadata } from './metadata';

const received = (code: grpc.status, details: string, metadata = new grpc.Metadata()): grpc.StatusObject => ({
  code,
  details,
  metadata,
});

describe('AppError across a gRPC call', () => {
  it('comes back with the same code, status, message and details', () => {
    const thrown = new AppError('POST_NOT_FOUND', 404, 'Post p1 was not found.', {
      details: [{ path: 'postId', message: 'unknown id' }],
    });

    const rebuilt = errorFromStatus(
      received(grpcStatusOf(thrown), thrown.message, errorMetadata(thrown, new grpc.Metadata())),
      'posts GetPost',
    );

    expect(rebuilt).toBeInstanceOf(AppError);
    expect(rebuilt).toMatchObject({ code: 'POST_NOT_FOUND', status: 404, message: 'Post p1 was not found.' });
    expect(rebuilt.details).toEqual([{ path: 'postId', message: 'unknown id' }]);
  });

  it('keeps an HTTP status that the gRPC code alone would lose', () => {
    const thrown = new AppError('PAYLOAD_TOO_LARGE', 413, 'Too big.');

    const rebuilt = errorFromStatus(
      received(grpc.status.INVALID_ARGUMENT, thrown.message, errorMetadata(thrown, new grpc.Metadata())),
      'media Upload',
    );

    expect(rebuilt).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413, details: [] });
  });

  it('ignores details it cannot read', () => {
    const metadata = new grpc.Metadata();
    metadata.set('x-error-code', 'CONFLICT');
    metadata.set(GRPC_ERROR_DETAILS_KEY, Buffer.from('not json'));

    expect(errorFromStatus(received(grpc.status.FAILED_PRECONDITION, 'Busy.', metadata), 'x').details).toEqual([]);
  });
});

describe('a failed call without an error code', () => {
  it('is DEADLINE_EXCEEDED 504 when the deadline passed', () => {
    const err = errorFromStatus(received(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded'), 'media GetMedia');

    expect(err).toMatchObject({ code: 'DEADLINE_EXCEEDED', status: 504, message: 'media GetMedia did not answer in time.' });
  });

  it('is SERVICE_UNAVAILABLE 503 with Retry-After when the server cannot be reached', () => {
    const err = errorFromStatus(received(grpc.status.UNAVAILABLE, 'No connection established'), 'media GetMedia');

    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, headers: { 'Retry-After': '1' } });
  });

  it('is SERVICE_UNAVAILABLE 503 when the server cut the call short', () => {
    const err = errorFromStatus(received(grpc.status.CANCELLED, 'Call cancelled'), 'media GetMedia');

    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
  });

  it.each([
    [grpc.status.NOT_FOUND, 'NOT_FOUND', 404],
    [grpc.status.UNAUTHENTICATED, 'UNAUTHENTICATED', 401],
    [grpc.status.UNIMPLEMENTED, 'INTERNAL', 500],
    [grpc.status.UNKNOWN, 'INTERNAL', 500],
  ])('maps status %s to %s %s', (status, code, httpStatus) => {
    expect(errorFromStatus(received(status, 'boom'), 'x')).toMatchObject({ code, status: httpStatus, message: 'boom' });
  });
});
