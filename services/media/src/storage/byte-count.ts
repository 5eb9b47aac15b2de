import { Transform, type TransformCallback } from 'node:stream';

export class SizeMismatchError extends Error {
  constructor(
    readonly expected: number,
    readonly actual: number,
    ended: boolean,
  ) {
    super(ended ? `the file ended after ${actual} of ${expected} bytes` : `the file is longer than the ${expected} bytes declared`);
    this.name = 'SizeMismatchError';
  }
}

/**
 * Counts the bytes of a write as they pass. With an expected size (NewFile.size) it fails the
 * stream when more arrive, or when the source ends short: a store that declared the length to its
 * server must not end the request early, or the server would wait for the rest.
 */
export class ByteCount extends Transform {
  bytes = 0;

  constructor(private readonly expected?: number) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.expected !== undefined && this.bytes > this.expected) return cb(new SizeMismatchError(this.expected, this.bytes, false));
    cb(null, chunk);
  }

  override _flush(cb: TransformCallback): void {
    if (this.expected !== undefined && this.bytes !== this.expected) return cb(new SizeMismatchError(this.expected, this.bytes, true));
    cb();
  }
}
