import type { Readable } from 'node:stream';
import type { MediaRecord, NewMedia } from './media.types';

/** Media metadata (data/media.repository.ts); `workspaceId` first on every tenant query. */
export interface MediaRecords {
  /** A fresh media id (time-ordered ObjectId hex). */
  newId(): string;
  create(fields: NewMedia): Promise<MediaRecord>;
  find(workspaceId: string, id: string): Promise<MediaRecord | null>;
  findMany(workspaceId: string, ids: string[]): Promise<MediaRecord[]>;
  /** For the storage host and the worker, which know a media id (from a signature or a job) but no tenant. */
  findById(id: string): Promise<MediaRecord | null>;
  /**
   * Updates only when the media still matches `expect` (a compare-and-set on the fields given), so
   * two racing writers cannot both win. Returns the updated media, or null.
   */
  updateIf(id: string, expect: Partial<MediaRecord>, set: Partial<MediaRecord>): Promise<MediaRecord | null>;
  delete(workspaceId: string, id: string): Promise<boolean>;
  /** Unconfirmed uploads created before `cutoff`. */
  findUnconfirmedBefore(cutoff: Date): Promise<MediaRecord[]>;
}

export interface StoredFile {
  id: string;
  size: number;
  contentType: string;
  /** Found in the old store (GRIDFS_FALLBACK), not the configured one. */
  legacy?: boolean;
}

/** What a store is told about a file it is about to write. */
export interface NewFile {
  contentType: string;
  mediaId: string;
  /**
   * The exact byte count, when the caller knows it (a Content-Length). A store may then send the
   * bytes on in one streamed request instead of buffering them in parts; a source that delivers
   * another count fails the write.
   */
  size?: number;
}

/**
 * Where media bytes live: a data directory (FsFileStore, the default) or an S3-compatible bucket
 * (S3FileStore). GridFS (GridFsFileStore) remains only as a read-only fallback for files stored
 * before the move, and as the source of `migrate-files`. Implemented in storage/.
 */
export interface FileStore {
  /**
   * Streams `source` into a new file and resolves when it is stored. When the stream fails (for
   * instance a ByteLimit in front of it), nothing is left behind and the promise rejects.
   */
  write(source: Readable, file: NewFile): Promise<StoredFile>;
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

/** Sends a media to the processing workers (jobs/media-jobs.ts). */
export interface ProcessingQueue {
  enqueue(job: { mediaId: string; workspaceId: string }): Promise<void>;
}

/** How posts use a media (asked of the posts service, clients/posts-usage.client.ts). */
export interface MediaUsage {
  count(workspaceId: string, mediaId: string): Promise<{ total: number; scheduled: number }>;
}
