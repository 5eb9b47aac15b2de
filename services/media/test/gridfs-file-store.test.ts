import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { MongoClient, type CommandSucceededEvent } from 'mongodb';
import { dropDatabases, testEnv } from '@social/testkit';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FallbackFileStore } from '../src/storage/fallback-file-store';
import { FsFileStore } from '../src/storage/fs-file-store';
import { GridFsFileStore, READ_BATCH_CHUNKS } from '../src/storage/gridfs-file-store';

const MiB = 1024 * 1024;
const env = testEnv();
let client: MongoClient;
let store: GridFsFileStore;
/** How many chunks each reply from the database carried, for reads of the chunks collection. */
const chunksPerReply: number[] = [];

beforeAll(async () => {
  client = await MongoClient.connect(env['MONGO_URL']!, { monitorCommands: true, retryWrites: false });
  client.on('commandSucceeded', (e: CommandSucceededEvent) => {
    const cursor = (e.reply as { cursor?: { ns?: string; firstBatch?: unknown[]; nextBatch?: unknown[] } }).cursor;
    if (cursor?.ns?.endsWith('.files.chunks')) chunksPerReply.push((cursor.firstBatch ?? cursor.nextBatch ?? []).length);
  });
  store = new GridFsFileStore(client.db(`${env['MONGO_DB_PREFIX']}media`));
});
afterAll(async () => {
  await client.close();
  await dropDatabases(env['MONGO_URL']!, env['MONGO_DB_PREFIX']!);
});

const collect = async (stream: Readable) => {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
};
const stored = async (bytes: Buffer) => store.write(Readable.from([bytes]), { contentType: 'application/octet-stream', mediaId: 'm1' });

describe('GridFsFileStore', () => {
  const file = randomBytes(5 * MiB + 12345);
  let id: string;
  beforeAll(async () => {
    id = (await stored(file)).id;
  });

  it('reads a stored file back byte for byte', async () => {
    expect((await collect(store.read(id))).equals(file)).toBe(true);
    expect(await store.stat(id)).toEqual({ id, size: file.length, contentType: 'application/octet-stream' });
  });

  it.each([
    ['the first 64 bytes', 0, 63],
    ['a range across a chunk boundary', MiB - 10, MiB + 9],
    ['exactly the third chunk', 2 * MiB, 3 * MiB - 1],
    ['a range inside one chunk', 3 * MiB + 100, 3 * MiB + 200],
    ['the tail of the last, short chunk', 5 * MiB + 12000, 5 * MiB + 12344],
    ['one byte', 4 * MiB, 4 * MiB],
  ])('reads %s (end inclusive)', async (_name, start, end) => {
    expect((await collect(store.read(id, { start, end }))).equals(file.subarray(start, end + 1))).toBe(true);
  });

  it(`fetches at most ${READ_BATCH_CHUNKS} chunks per reply, however large the file`, async () => {
    chunksPerReply.length = 0;
    await collect(store.read(id));
    expect(chunksPerReply.reduce((a, b) => a + b, 0)).toBe(6);
    expect(Math.max(...chunksPerReply)).toBeLessThanOrEqual(READ_BATCH_CHUNKS);
  });

  it('stops fetching when the reader stops: a reader that takes one chunk does not pull the file', async () => {
    chunksPerReply.length = 0;
    const stream = store.read(id);
    for await (const _ of stream) break;
    expect(chunksPerReply.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2 * READ_BATCH_CHUNKS);
  });

  it('reads an empty file as no bytes', async () => {
    const empty = await stored(Buffer.alloc(0));
    expect((await collect(store.read(empty.id))).length).toBe(0);
  });

  it('fails the stream of a file that does not exist', async () => {
    await expect(collect(store.read('no-such-file'))).rejects.toThrow(/FileNotFound/);
  });

  it('fails the stream of a file with a missing chunk instead of serving a shorter file', async () => {
    const damaged = await stored(randomBytes(3 * MiB));
    await client.db(`${env['MONGO_DB_PREFIX']}media`).collection('files.chunks').deleteOne({ files_id: damaged.id, n: 1 });
    await expect(collect(store.read(damaged.id))).rejects.toThrow(/missing/i);
  });

  it('deletes a file; deleting it again is not an error', async () => {
    const gone = await stored(randomBytes(1000));
    await store.delete(gone.id);
    expect(await store.stat(gone.id)).toBeNull();
    await expect(store.delete(gone.id)).resolves.toBeUndefined();
  });
});

describe('FallbackFileStore', () => {
  it('locates only files of the primary store for reading in place; a GridFS file is read through read()', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'media-files-'));
    try {
      const primary = new FsFileStore(dir);
      const both = new FallbackFileStore(primary, store);
      const fresh = await primary.write(Readable.from([randomBytes(1000)]), { contentType: 'video/mp4', mediaId: 'm1' });
      const legacy = await stored(randomBytes(1000));
      expect(await both.locate(fresh.id)).toBe(join(dir, fresh.id.slice(22), fresh.id));
      expect(await both.locate(legacy.id)).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
