import { testEnv } from '@social/testkit';
import { Readable } from 'node:stream';
import { loadMediaConfig } from '../src/config';
import { probeAv, probeImage, UndecodableError, withLocalCopy, withStoredFile } from '../src/domain/processing/probe';
import type { FileStore } from '../src/storage/file-store';
import { primaryStore } from '../src/storage/store-from-config';
import { corruptMp4, jpeg, mp4 } from './fixtures';
import { testStore, type TestStore } from './store-env';

// The worker measures stored files where they are (fs: the file; s3: ranged reads of a presigned
// address), not from a copy of the whole file; on the backend MEDIA_STORE names.
const MiB = 1024 * 1024;
let t: TestStore;
let store: FileStore;

beforeAll(async () => {
  t = await testStore();
  store = primaryStore(loadMediaConfig(testEnv(t.env)));
});
afterAll(async () => {
  (store as { destroy?: () => void } | undefined)?.destroy?.();
  await t.cleanup();
});
afterEach(() => jest.restoreAllMocks());

/** `video` with a `free` box of `bytes` between its frames (mdat) and its index (moov): the offsets stay valid. */
function padBeforeMoov(video: Buffer, bytes: number): Buffer {
  let at = 0;
  while (at < video.length && video.toString('latin1', at + 4, at + 8) !== 'moov') at += video.readUInt32BE(at);
  if (at >= video.length) throw new Error('no moov box');
  const free = Buffer.alloc(bytes, 0x20);
  free.writeUInt32BE(bytes, 0);
  free.write('free', 4, 'latin1');
  return Buffer.concat([video.subarray(0, at), free, video.subarray(at)]);
}

const put = (bytes: Buffer, contentType = 'video/mp4') => store.write(Readable.from([bytes]), { contentType, mediaId: 'm1' });

describe(`measuring a stored file in place (${process.env['MEDIA_STORE'] ?? 'fs'})`, () => {
  it('measures a large MP4 with its index at the end without reading the file through the store', async () => {
    const video = padBeforeMoov(await mp4(320, 240, 2, 25, { moovAtEnd: true }), 48 * MiB);
    const stored = await put(video);
    const read = jest.spyOn(store, 'read');
    const m = await withStoredFile(store, stored.id, { remote: true }, (file) => probeAv(file, 'VIDEO'));
    expect(m).toMatchObject({ width: 320, height: 240, duration: 2, fps: 25 });
    expect(m.preview?.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(read).not.toHaveBeenCalled();
    await store.delete(stored.id);
  });

  it('rejects a corrupt video for the same reason as before, judged on a copy', async () => {
    const bytes = corruptMp4();
    const stored = await put(bytes);
    const read = jest.spyOn(store, 'read');
    const inPlace = withStoredFile(store, stored.id, { remote: true }, (file) => probeAv(file, 'VIDEO'));
    await expect(inPlace).rejects.toBeInstanceOf(UndecodableError);
    const reason = (await inPlace.catch((err: Error) => err)) as Error;
    const copied = (await withLocalCopy(
      () => Readable.from([bytes]),
      (file) => probeAv(file, 'VIDEO'),
    ).catch((err: Error) => err)) as Error;
    const withoutAddresses = (message: string) => message.replace(/ @ 0x[0-9a-f]+/g, '');
    expect(withoutAddresses(reason.message)).toBe(withoutAddresses(copied.message));
    expect(reason.message).toMatch(/video could not be decoded/);
    expect(read).toHaveBeenCalledTimes(1);
    await store.delete(stored.id);
  });

  it('fails the job, not the file, when the stored file is gone', async () => {
    const stored = await put(await mp4(64, 64, 1, 10));
    await store.delete(stored.id);
    const err = await withStoredFile(store, stored.id, { remote: true }, (file) => probeAv(file, 'VIDEO')).catch((e: Error) => e);
    expect(err).not.toBeInstanceOf(UndecodableError);
    expect((err as Error).message).toMatch(/not found|ENOENT|NoSuchKey/i);
  });

  it('reads an image in place on the fs store and from a copy where it has only an address (sharp reads paths)', async () => {
    const stored = await put(await jpeg(800, 400), 'image/jpeg');
    const read = jest.spyOn(store, 'read');
    const m = await withStoredFile(store, stored.id, { remote: false }, (file) => probeImage(file, 'IMAGE'));
    expect(m).toMatchObject({ width: 800, height: 400 });
    expect(read).toHaveBeenCalledTimes(t.kind === 'fs' ? 0 : 1);
    await store.delete(stored.id);
  });
});
