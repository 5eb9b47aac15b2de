import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { GridFSBucket, type Db } from 'mongodb';
import { newId } from '../data/ids';
import type { FileStore, StoredFile } from './file-store';

/** Files in GridFS in the service's own database (bucket `files`), 1 MiB chunks. */
export class GridFsFileStore implements FileStore {
  private readonly bucket: GridFSBucket;

  constructor(db: Db) {
    this.bucket = new GridFSBucket(db, { bucketName: 'files', chunkSizeBytes: 1024 * 1024 });
  }

  async write(source: Readable, meta: { contentType: string; mediaId: string }): Promise<StoredFile> {
    const id = newId();
    const upload = this.bucket.openUploadStreamWithId(id as never, meta.mediaId, {
      metadata: { contentType: meta.contentType, mediaId: meta.mediaId },
    });
    try {
      await pipeline(source, upload);
    } catch (err) {
      // A failed upload leaves its chunks behind; abort() removes them.
      await upload.abort().catch(() => undefined);
      await this.delete(id);
      throw err;
    }
    return { id, size: upload.length, contentType: meta.contentType };
  }

  read(id: string, range?: { start: number; end: number }): Readable {
    return this.bucket.openDownloadStream(id as never, range ? { start: range.start, end: range.end + 1 } : {});
  }

  async stat(id: string): Promise<StoredFile | null> {
    const [file] = await this.bucket.find({ _id: id as never }).limit(1).toArray();
    if (!file) return null;
    return { id, size: file.length, contentType: String((file.metadata as { contentType?: string })?.contentType ?? 'application/octet-stream') };
  }

  async delete(id: string): Promise<void> {
    try {
      await this.bucket.delete(id as never);
    } catch (err) {
      if (!/FileNotFound|not found/i.test((err as Error).message)) throw err;
    }
  }
}
