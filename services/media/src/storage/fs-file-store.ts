import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { newId } from '../data/ids';
import { checkFileKey, isFileKey } from './file-key';
import { ByteCount } from './byte-count';
import type { FileStore, NewFile, StoredFile } from './file-store';

const TMP_DIR = '.incoming';
const OCTETS = 'application/octet-stream';

/**
 * Files in a data directory: `<dir>/<id[22..24]>/<id>` (256 subdirectories, so no directory grows
 * huge). A write streams into `<dir>/.incoming/<random>` and is renamed into place only when the
 * whole body arrived, so a file that is visible is always complete; an interrupted write removes its
 * temporary file (and `sweepIncoming` removes what a killed process left). Ids are validated
 * (file-key.ts) before any path is built.
 *
 * The content type is not kept: the media document has it (uploadedContentType, mimeType).
 */
export class FsFileStore implements FileStore {
  private ready: Promise<unknown> | undefined;

  constructor(readonly dir: string) {}

  private ensureDirs(): Promise<unknown> {
    this.ready ??= mkdir(join(this.dir, TMP_DIR), { recursive: true, mode: 0o700 });
    return this.ready;
  }

  private pathOf(id: string): string {
    checkFileKey(id);
    return join(this.dir, id.slice(22), id);
  }

  async write(source: Readable, meta: NewFile): Promise<StoredFile> {
    await this.ensureDirs();
    const id = newId();
    const tmp = join(this.dir, TMP_DIR, `${id}.part`);
    const counter = new ByteCount(meta.size);
    try {
      // `flags: 'wx'`: never overwrite; the id is new, so this only guards against a bug.
      await pipeline(source, counter, createWriteStream(tmp, { flags: 'wx', mode: 0o600 }));
      const final = this.pathOf(id);
      await mkdir(join(this.dir, id.slice(22)), { recursive: true, mode: 0o700 });
      await rename(tmp, final);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return { id, size: counter.bytes, contentType: meta.contentType || OCTETS };
  }

  read(id: string, range?: { start: number; end: number }): Readable {
    const path = this.pathOf(id);
    // 1 MiB reads: fewer system calls than the 64 KiB default; memory stays at a few MB.
    return createReadStream(path, { ...(range ? { start: range.start, end: range.end } : {}), highWaterMark: 1024 * 1024 });
  }

  async stat(id: string): Promise<StoredFile | null> {
    if (!isFileKey(id)) return null;
    try {
      const s = await stat(this.pathOf(id));
      return s.isFile() ? { id, size: s.size, contentType: OCTETS } : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** The file itself: the decoders read it in place (it is never rewritten, only deleted). */
  async locate(id: string): Promise<string | null> {
    return (await this.stat(id)) ? this.pathOf(id) : null;
  }

  async delete(id: string): Promise<void> {
    if (!isFileKey(id)) return;
    await unlink(this.pathOf(id)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  /** The ids of every stored file (not the temporary ones). */
  async list(): Promise<string[]> {
    const ids: string[] = [];
    const subdirs = await readdir(this.dir).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? [] : Promise.reject(err)));
    for (const sub of subdirs) {
      if (!/^[0-9a-f]{2}$/.test(sub)) continue;
      for (const name of await readdir(join(this.dir, sub))) if (isFileKey(name)) ids.push(name);
    }
    return ids;
  }

  /**
   * Removes temporary files older than `olderThanMs` (left by a process killed mid-upload). Files
   * still being written are younger than any upload can take at the configured timeouts.
   */
  async sweepIncoming(olderThanMs: number, now = Date.now()): Promise<number> {
    await this.ensureDirs();
    const dir = join(this.dir, TMP_DIR);
    let removed = 0;
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      const s = await stat(path).catch(() => null);
      if (s && now - s.mtimeMs > olderThanMs) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }
}
