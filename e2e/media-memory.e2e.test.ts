import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { idleRss, PeakRss, TestSystem, toMB } from '@social/testkit';
import { apiClient, viaGateway as signedViaGateway } from './support/api';
import { mp4, startTlsServer, type TlsServer } from '../services/media/test/fixtures';
import { STORE, testStore, type TestStore } from '../services/media/test/store-env';

// Files are streamed, never held whole: a 200 MB video (the import limit, IMPORT_MAX_VIDEO_BYTES,
// counted in MiB) goes through the signed upload, the worker, an import by URL and a signed
// download, and neither the media service nor the worker may grow by 50 MB of RSS (issue 15). Jest
// runs this file on each store: project "e2e" on the filesystem, "e2e-s3" on versitygw. Holding the
// file grows a process by its size; buffering the s3 import in 8 MiB multipart parts grew the worker
// by 41-109 MB. Streaming itself costs about 35 MB, whatever the file size: socket and file chunks
// V8 has not collected yet (it scavenges once about 32 MB of young ArrayBuffers are outstanding).
const MiB = 1024 * 1024;
const SIZE = 200 * MiB;
const BOUND_MB = 50;

let dir: string;
let bigFile: string;
let small: Buffer;
let tls: TlsServer;
let store: TestStore;
let system: TestSystem;
let pids: Record<string, number>;
let creds: { apiId: string; apiKey: string };
const seen: string[] = [];

/**
 * A real MP4 followed by a `free` box up to exactly `size` bytes: still a valid MP4, and every
 * byte is stored. The box is a hole in a sparse file, so making it costs no disk writes.
 */
async function writePadded(file: string, video: Buffer, size: number): Promise<void> {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(size - video.length, 0);
  header.write('free', 4, 'latin1');
  await fs.promises.writeFile(file, Buffer.concat([video, header]));
  await fs.promises.truncate(file, size);
}

const api = () => apiClient(system, creds);
const viaGateway = (signed: string) => signedViaGateway(system, signed);
async function settled(mediaId: string) {
  for (let i = 0; i < 1200; i++) {
    const media = (await api().GET('/media/{mediaId}', { params: { path: { mediaId } } })).data!;
    if (media.status !== 'PROCESSING') return media;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`media ${mediaId} still PROCESSING`);
}
async function upload(file: string) {
  const { id, uploadUrl } = (await api().POST('/media', { body: { name: 'v.mp4', destinationType: 'POST_MEDIA' } })).data!;
  // The signed storage address is raw HTTP: it carries its own signature, not the API keys. A Blob
  // (read from the file as it is sent), so fetch follows the store's 307 on s3 with the same body.
  const put = await fetch(viaGateway(uploadUrl), {
    method: 'PUT',
    headers: { 'content-type': 'video/mp4' },
    body: await fs.openAsBlob(file),
  });
  expect(put.status).toBe(STORE === 's3' ? 200 : 201);
  expect((await api().PATCH('/media/{mediaId}', { params: { path: { mediaId: id } } })).response.status).toBe(200);
  return settled(id);
}
async function importUrl(fileUrl: string) {
  const res = await api().POST('/media/from-url', { body: { name: 'v.mp4', destinationType: 'POST_MEDIA', fileUrl } });
  expect(res.response.status).toBe(201);
  return settled(res.data!.id);
}
async function sha256(stream: AsyncIterable<Uint8Array>): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** Runs `fn` and returns its result with how far each process's RSS rose above its idle level just before. */
async function growthDuring<T>(flow: string, fn: () => Promise<T>): Promise<{ result: T; growthMB: Record<string, number> }> {
  const baseline = await idleRss(pids, 10, 100);
  const watch = PeakRss.start(pids);
  let peak: Record<string, number>;
  let result: T;
  try {
    result = await fn();
  } finally {
    peak = watch.stop();
  }
  const growthMB = Object.fromEntries(Object.keys(pids).map((k) => [k, toMB(peak[k]! - baseline[k]!)]));
  seen.push(`${flow}: media ${growthMB['media']} MB, media-worker ${growthMB['media-worker']} MB`);
  return { result, growthMB };
}

const describeOnLinux = process.platform === 'linux' ? describe : describe.skip;

describeOnLinux(`memory of the media service and worker with a 200 MB video (${STORE} store)`, () => {
  beforeAll(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'e2e-media-memory-'));
    small = await mp4(1280, 720, 2, 30);
    bigFile = path.join(dir, 'big.mp4');
    await writePadded(bigFile, small, SIZE);
    tls = await startTlsServer((req, res) => {
      const file = req.url === '/small.mp4' ? null : bigFile;
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': file ? SIZE : small.length });
      if (file) void pipeline(fs.createReadStream(file), res).catch(() => undefined);
      else res.end(small);
    });
    const caFile = path.join(dir, 'ca.pem');
    await fs.promises.writeFile(caFile, tls.ca);
    store = await testStore();
    // The test's own HTTPS server is on loopback: exactly that address is exempt from the import rules.
    system = await TestSystem.start({ ...store.env, IMPORT_ALLOW_CIDRS: '127.0.0.1/32', NODE_EXTRA_CA_CERTS: caFile }, [
      'media',
      'media-worker',
      'gateway',
    ]);
    pids = { media: system.pid('media')!, 'media-worker': system.pid('media-worker')! };
    creds = await system.admin(['workspace', 'create', '--name', 'memory', '--json']);
    // Warm-up with a small video, so the idle levels include loaded decoders, pools and compiled code.
    const smallFile = path.join(dir, 'small.mp4');
    await fs.promises.writeFile(smallFile, small);
    expect((await upload(smallFile)).status).toBe('SUCCESS');
    expect((await importUrl(tls.url('127.0.0.1', '/small.mp4'))).status).toBe('SUCCESS');
  }, 180000);

  afterAll(async () => {
    // One line per run, so the margin under the bound can be followed across CI runs.
    if (seen.length > 0) process.stdout.write(`media-memory (${STORE}, RSS growth): ${seen.join('; ')}\n`);
    await system?.destroy();
    await store?.cleanup();
    await tls?.close();
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
  }, 60000);

  let uploaded: { path: string | null };

  it('stores and processes an uploaded 200 MB video with the service and the worker each growing by less than 50 MB', async () => {
    const { result: media, growthMB } = await growthDuring('upload', () => upload(bigFile));
    uploaded = media;

    expect(media).toMatchObject({ status: 'SUCCESS', type: 'video/mp4', specs: { width: 1280, height: 720, fileSizeBytes: SIZE } });
    expect(growthMB['media']).toBeLessThan(BOUND_MB);
    expect(growthMB['media-worker']).toBeLessThan(BOUND_MB);
  }, 180000);

  it('imports a 200 MB video by URL with the worker and the service each growing by less than 50 MB', async () => {
    const { result: media, growthMB } = await growthDuring('import', () => importUrl(tls.url('127.0.0.1', '/big.mp4')));

    expect(media).toMatchObject({ status: 'SUCCESS', type: 'video/mp4', specs: { width: 1280, height: 720, fileSizeBytes: SIZE } });
    expect(growthMB['media-worker']).toBeLessThan(BOUND_MB);
    expect(growthMB['media']).toBeLessThan(BOUND_MB);
  }, 180000);

  it('serves the 200 MB file at its signed address byte for byte with the service and the worker each growing by less than 50 MB', async () => {
    expect(uploaded?.path).toBeDefined();
    const expected = await sha256(fs.createReadStream(bigFile));

    const { result: got, growthMB } = await growthDuring('download', async () => {
      // On s3 the address answers 307 to a presigned GET of the store; fetch follows it.
      const res = await fetch(viaGateway(uploaded.path!));
      return { status: res.status, ...(await sha256(res.body as unknown as AsyncIterable<Uint8Array>)) };
    });

    expect(got).toEqual({ status: 200, ...expected });
    expect(growthMB['media']).toBeLessThan(BOUND_MB);
    expect(growthMB['media-worker']).toBeLessThan(BOUND_MB);
  }, 180000);
});
