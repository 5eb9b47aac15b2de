import type { Readable } from 'node:stream';

export interface StoredFile {
  id: string;
  size: number;
  contentType: string;
  /** Found in the old store (GRIDFS_FALLBACK), not the configured one. */
  legacy?: boolean;
}

/**
 * Where media bytes live: a data directory (FsFileStore, the default) or an S3-compatible bucket
 * (S3FileStore). GridFS (GridFsFileStore) remains only as a read-only fallback for files stored
 * before the move, and as the source of `migrate-files`.
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
  /** Removes what interrupted writes of a killed process left (temporary files, multipart parts). */
  sweepIncoming?(olderThanMs: number, now?: number): Promise<number>;
  /**
   * Where a decoder can read the file in place, without a copy: a local path (fs), or an http(s)
   * address that serves byte ranges, for this process only (s3: presigned, short-lived). Null or
   * absent: the file has to be read through `read`.
   */
  locate?(id: string): Promise<string | null>;
}

/** A store clients can upload to and download from directly, by presigned addresses. */
export interface DirectTransfer {
  newKey(): string;
  presignPut(id: string, file: { contentType: string; contentLength: number }, expiresInSeconds: number): Promise<string>;
  presignGet(id: string, response: { contentType: string; cacheControl: string }, expiresInSeconds: number): Promise<string>;
}

export const hasDirectTransfer = (store: FileStore): store is FileStore & DirectTransfer =>
  typeof (store as Partial<DirectTransfer>).presignPut === 'function';
