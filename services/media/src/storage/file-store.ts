import type { Readable } from 'node:stream';

export interface StoredFile {
  id: string;
  size: number;
  contentType: string;
}

/**
 * Where media bytes live. GridFS is the default; an S3-compatible store implements the same four
 * operations (multipart upload, ranged GET, HEAD, DELETE).
 */
export interface FileStore {
  /**
   * Streams `source` into a new file and resolves when it is stored. When the stream fails (for
   * instance a ByteLimit in front of it), nothing is left behind and the promise rejects.
   */
  write(source: Readable, meta: { contentType: string; mediaId: string }): Promise<StoredFile>;
  /** The bytes of a stored file, optionally a range (end inclusive). */
  read(id: string, range?: { start: number; end: number }): Readable;
  stat(id: string): Promise<StoredFile | null>;
  /** Removing a missing file is not an error. */
  delete(id: string): Promise<void>;
}
