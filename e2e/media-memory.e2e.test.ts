import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { idleRss, PeakRss, TestSystem, toMB } from '@social/testkit';
import { apiClient, viaGateway as signedViaGateway } from './support/api';
import { mp4, startTlsServer, type TlsServer } from '../services/media/test/fixtures';

// Files are streamed, never held whole: a 128 MiB video goes through the signed upload, the worker,
// an import by URL and a signed download, and neither the media service nor the worker may grow by
// half the file size. Holding the file whole grows a process by at least the file size (before the
// GridFS reads were batched, the worker grew by about 1.8 times the file). The bound is loose on
// purpose: garbage collection alone lets a process grow by a few tens of MB, whatever the file size.
const MiB = 1024 * 1024;
const SIZE = 128 * MiB;
const BOUND_MB = toMB(SIZE / 2);

let dir: string;
let bigFile: string;
let small: Buffer;
let tls: TlsServer;
let system: TestSystem;
let pids: Record<string, number>;
let creds: { apiId: string; apiKey: string };

/** A real MP4 padded with a `free` box to exactly `size` bytes: still a valid MP4, and every byte is stored and probed. */
function padded(video: Buffer, size: number): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(size - video.length, 0);
  header.write('free', 4, 'latin1');
  return Buffer.concat([video, header, Buffer.alloc(size - video.length - 8, 0x20)]);
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
async function upload(file: Buffer) {
  const { id, uploadUrl } = (await api().POST('/media', { body: { name: 'v.mp4', destinationType: 'POST_MEDIA' } })).data!;
  // The signed storage address is raw HTTP: it carries its own signature, not the API keys.
  const put = await fetch(viaGateway(uploadUrl), { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: file });
  expect(put.status).toBe(201);
  expect((await api().PATCH('/media/{mediaId}', { params: { path: { mediaId: id } } })).response.status).toBe(200);
  return settled(id);
}
async function importUrl(fileUrl: string) {
  const res = await api().POST('/media/from-url', { body: { name: 'v.mp4', destinationType: 'POST_MEDIA', fileUrl } });
  expect(res.response.status).toBe(201);
  return settled(res.data!.id);
}

/** Runs `fn` and returns its result with how far each process's RSS rose above its idle level just before. */
async function growthDuring<T>(fn: () => Promise<T>): Promise<{ result: T; growthMB: Record<string, number> }> {
  const baseline = await idleRss(pids, 10, 100);
  const watch = PeakRss.start(pids);
  let peak: Record<string, number>;
  let result: T;
  try {
    result = await fn();
  } finally {
    peak = watch.stop();
  }
  return { result, growthMB: Object.fromEntries(Object.keys(pids).map((k) => [k, toMB(peak[k]! - baseline[k]!)])) };
}

const describeOnLinux = process.platform === 'linux' ? describe : describe.skip;

describeOnLinux('memory of the media service and worker with a 128 MiB video', () => {
  beforeAll(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'e2e-media-memory-'));
    small = await mp4(1280, 720, 2, 30);
    bigFile = path.join(dir, 'big.mp4');
    await fs.promises.writeFile(bigFile, padded(small, SIZE));
    tls = await startTlsServer((req, res) => {
      const file = req.url === '/small.mp4' ? null : bigFile;
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': file ? SIZE : small.length });
      if (file) fs.createReadStream(file).pipe(res);
      else res.end(small);
    });
    const caFile = path.join(dir, 'ca.pem');
    await fs.promises.writeFile(caFile, tls.ca);
    // The test's own HTTPS server is on loopback: exactly that address is exempt from the import rules.
    system = await TestSystem.start({ IMPORT_ALLOW_CIDRS: '127.0.0.1/32', NODE_EXTRA_CA_CERTS: caFile }, [
      'media',
      'media-worker',
      'gateway',
    ]);
    pids = { media: system.pid('media')!, 'media-worker': system.pid('media-worker')! };
    creds = await system.admin(['workspace', 'create', '--name', 'memory', '--json']);
    // Warm-up with a small video, so the idle levels include loaded decoders, pools and compiled code.
    expect((await upload(small)).status).toBe('SUCCESS');
    expect((await importUrl(tls.url('127.0.0.1', '/small.mp4'))).status).toBe('SUCCESS');
  }, 180000);

  afterAll(async () => {
    await system?.destroy();
    await tls?.close();
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
  }, 60000);

  let uploaded: { path: string | null };

  it('stores and processes an uploaded 128 MiB video with the service and the worker each growing by less than half of it', async () => {
    const file = await fs.promises.readFile(bigFile);

    const { result: media, growthMB } = await growthDuring(() => upload(file));
    uploaded = media;

    expect(media).toMatchObject({ status: 'SUCCESS', type: 'video/mp4', specs: { width: 1280, height: 720, fileSizeBytes: SIZE } });
    expect(growthMB['media']).toBeLessThan(BOUND_MB);
    expect(growthMB['media-worker']).toBeLessThan(BOUND_MB);
  }, 180000);

  it('imports a 128 MiB video by URL with the worker growing by less than half of it', async () => {
    const { result: media, growthMB } = await growthDuring(() => importUrl(tls.url('127.0.0.1', '/big.mp4')));

    expect(media).toMatchObject({ status: 'SUCCESS', type: 'video/mp4', specs: { width: 1280, height: 720, fileSizeBytes: SIZE } });
    expect(growthMB['media-worker']).toBeLessThan(BOUND_MB);
    expect(growthMB['media']).toBeLessThan(BOUND_MB);
  }, 180000);

  it('serves the 128 MiB file at its signed address byte for byte with the service growing by less than half of it', async () => {
    expect(uploaded?.path).toBeDefined();
    const expected = createHash('sha256')
      .update(await fs.promises.readFile(bigFile))
      .digest('hex');

    const { result: got, growthMB } = await growthDuring(async () => {
      const res = await fetch(viaGateway(uploaded.path!));
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        hash.update(chunk);
        bytes += chunk.length;
      }
      return { status: res.status, bytes, sha256: hash.digest('hex') };
    });

    expect(got).toEqual({ status: 200, bytes: SIZE, sha256: expected });
    expect(growthMB['media']).toBeLessThan(BOUND_MB);
  }, 180000);
});
