import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';

export class TooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the file is larger than ${formatBytes(limit)}`);
    this.name = 'TooLargeError';
  }
}

export const formatBytes = (n: number) => (n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MB` : `${n} bytes`);

/** Counts bytes as they pass and fails the stream the moment the limit is passed. */
export class ByteLimit extends Transform {
  bytes = 0;
  constructor(private readonly limit: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) return cb(new TooLargeError(this.limit));
    cb(null, chunk);
  }
}

/**
 * `source` through a ByteLimit. Unlike pipe(), an error or abort of the source (a client or server
 * that hangs up mid-body) fails the returned stream, so a consumer never waits for an end that
 * will not come.
 */
export function limited(source: Readable, limit: number): ByteLimit {
  const limiter = new ByteLimit(limit);
  pipeline(source, limiter, () => undefined);
  return limiter;
}
