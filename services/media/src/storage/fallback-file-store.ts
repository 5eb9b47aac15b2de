import { Readable } from 'node:stream';
import type { FileStore, NewFile, StoredFile } from './file-store';

/**
 * The configured store, with files it does not hold read from the old one (GridFS, before
 * `migrate-files` moved them). New files are only written to the primary; a delete removes the file
 * from both. `stat` marks a file of the old store `legacy`, so it is never handed out by a presigned
 * address of the primary.
 */
export class FallbackFileStore implements FileStore {
  constructor(
    readonly primary: FileStore,
    private readonly legacy: FileStore,
  ) {}

  write(source: Readable, meta: NewFile): Promise<StoredFile> {
    return this.primary.write(source, meta);
  }

  read(id: string, range?: { start: number; end: number }): Readable {
    return Readable.from(this.readFrom(id, range), { objectMode: false, highWaterMark: 1 });
  }

  private async *readFrom(id: string, range?: { start: number; end: number }): AsyncGenerator<Buffer> {
    const store = (await this.primary.stat(id)) ? this.primary : this.legacy;
    yield* store.read(id, range) as AsyncIterable<Buffer>;
  }

  async stat(id: string): Promise<StoredFile | null> {
    const primary = await this.primary.stat(id);
    if (primary) return primary;
    const legacy = await this.legacy.stat(id);
    return legacy ? { ...legacy, legacy: true } : null;
  }

  /** In place only in the primary store; a file of the old one is read (copied) through `read`. */
  async locate(id: string): Promise<string | null> {
    if (!this.primary.locate || !(await this.primary.stat(id))) return null;
    return this.primary.locate(id);
  }

  async delete(id: string): Promise<void> {
    await this.primary.delete(id);
    await this.legacy.delete(id);
  }

  sweepIncoming(olderThanMs: number, now?: number): Promise<number> {
    return this.primary.sweepIncoming?.(olderThanMs, now) ?? Promise.resolve(0);
  }
}
