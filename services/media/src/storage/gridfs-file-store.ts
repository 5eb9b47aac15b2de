import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, type Binary, type Collection, type Db } from 'mongodb';
import { newId } from '../data/ids';
import { fileNotFound } from './file-key';
import { ByteCount } from './byte-count';
import type { FileStore, NewFile, StoredFile } from './file-store';

const BUCKET = 'files';

/**
 * Chunks fetched per round trip when reading. The driver's own download stream leaves the batch
 * size to the server, and FerretDB answers the first find with up to 101 chunks — a 100 MB file
 * arrived in one reply and sat whole in memory. Two 1 MiB chunks per batch keep a read at a few MB.
 */
export const READ_BATCH_CHUNKS = 2;

interface ChunkDoc {
  files_id: string;
  n: number;
  data: Binary;
}

interface FileDoc {
  _id: string;
  length: number;
  chunkSize: number;
}

/** Files in GridFS in the service's own database (bucket `files`), 1 MiB chunks. */
export class GridFsFileStore implements FileStore {
  private readonly bucket: GridFSBucket;
  private readonly files: Collection<FileDoc>;
  private readonly chunks: Collection<ChunkDoc>;

  constructor(db: Db) {
    this.bucket = new GridFSBucket(db, { bucketName: BUCKET, chunkSizeBytes: 1024 * 1024 });
    this.files = db.collection<FileDoc>(`${BUCKET}.files`);
    this.chunks = db.collection<ChunkDoc>(`${BUCKET}.chunks`);
  }

  async write(source: Readable, meta: NewFile): Promise<StoredFile> {
    const id = newId();
    const upload = this.bucket.openUploadStreamWithId(id as never, meta.mediaId, {
      metadata: { contentType: meta.contentType, mediaId: meta.mediaId },
    });
    try {
      await pipeline(source, new ByteCount(meta.size), upload);
    } catch (err) {
      // A failed upload leaves its chunks behind; abort() removes them.
      await upload.abort().catch(() => undefined);
      await this.delete(id);
      throw err;
    }
    return { id, size: upload.length, contentType: meta.contentType };
  }

  /**
   * The file's chunks in order, READ_BATCH_CHUNKS per round trip; the next batch is fetched only
   * when the reader has taken the previous one (the stream's high-water mark is below one chunk).
   */
  read(id: string, range?: { start: number; end: number }): Readable {
    return Readable.from(this.chunksOf(id, range), { objectMode: false });
  }

  private async *chunksOf(id: string, range?: { start: number; end: number }): AsyncGenerator<Buffer> {
    const file = await this.files.findOne({ _id: id });
    if (!file) throw fileNotFound(id);
    const { length: size, chunkSize } = file;
    const start = range?.start ?? 0;
    const end = Math.min(range ? range.end + 1 : size, size); // exclusive
    if (end <= start) return;
    const first = Math.floor(start / chunkSize);
    const last = Math.ceil(end / chunkSize) - 1;
    const cursor = this.chunks.find(
      { files_id: id, ...(first > 0 ? { n: { $gte: first } } : {}) },
      { sort: { n: 1 }, batchSize: READ_BATCH_CHUNKS, limit: last - first + 1 },
    );
    try {
      let n = first;
      for await (const doc of cursor) {
        if (doc.n !== n) throw new Error(`stored file ${id} is damaged: chunk ${n} is missing (found ${doc.n})`);
        const data = doc.data.buffer;
        const expected = Math.min(chunkSize, size - n * chunkSize);
        if (data.length !== expected)
          throw new Error(`stored file ${id} is damaged: chunk ${n} has ${data.length} bytes, expected ${expected}`);
        const from = n === first ? start - n * chunkSize : 0;
        const to = n === last ? end - n * chunkSize : data.length;
        yield Buffer.from(data.buffer, data.byteOffset + from, to - from);
        n++;
      }
      if (n !== last + 1) throw new Error(`stored file ${id} is damaged: chunk ${n} is missing`);
    } finally {
      await cursor.close();
    }
  }

  async stat(id: string): Promise<StoredFile | null> {
    const [file] = await this.bucket
      .find({ _id: id as never })
      .limit(1)
      .toArray();
    if (!file) return null;
    return {
      id,
      size: file.length,
      contentType: String((file.metadata as { contentType?: string })?.contentType ?? 'application/octet-stream'),
    };
  }

  async delete(id: string): Promise<void> {
    try {
      await this.bucket.delete(id as never);
    } catch (err) {
      if (!/FileNotFound|not found/i.test((err as Error).message)) throw err;
    }
  }
}
