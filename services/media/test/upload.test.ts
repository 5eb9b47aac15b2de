import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import http from 'node:http';
import { createMediaClient, type MediaServiceMethods } from '@social/contracts';
import type { GrpcClient } from '@social/grpc';
import { testSigner } from '@social/testkit';
import sharp from 'sharp';
import { UrlSigner, uploadPath } from '../src/domain/signing';
import { corruptJpeg, corruptMp4, gif, jpeg, mp4, png } from './fixtures';
import { startMedia, type Harness } from './harness';
import { STORE } from './store-env';

/**
 * The final status of a signed PUT: 201 from the service (fs), or 200 from the store after the
 * service's 307 to a presigned address (s3; fetch follows it with the same body).
 */
const UPLOADED = STORE === 's3' ? 200 : 201;

const usage = { total: 0, scheduled: 0 };
let h: Harness;
let grpc: GrpcClient<MediaServiceMethods>;

beforeAll(async () => {
  h = await startMedia({ MAX_UPLOAD_BYTES: String(4 * 1024 * 1024) }, { usage: { count: async () => usage } });
  grpc = createMediaClient(`127.0.0.1:${h.service.grpcPort}`, {
    signer: testSigner('publisher'),
  });
});
afterAll(async () => {
  grpc.close();
  await h.stop();
});

const create = async (ws: string, body: Record<string, unknown> = {}) => {
  const res = await h.api(ws, 'POST', '/media', { name: 'file', destinationType: 'POST_MEDIA', ...body });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; uploadUrl: string; previewUrl: string };
};
// A Blob, so that fetch can send the body again after the 307 of MEDIA_STORE=s3 (it cannot replay a Buffer).
const put = (url: string, body: Buffer | ReadableStream, contentType = 'application/octet-stream', extra: RequestInit = {}) =>
  fetch(url, {
    method: 'PUT',
    headers: { 'content-type': contentType },
    body: Buffer.isBuffer(body) ? new Blob([body]) : body,
    ...extra,
  } as RequestInit);

/** Steps 1-3 and the wait for processing. */
async function uploadAndProcess(ws: string, file: Buffer, contentType: string, body: Record<string, unknown> = {}) {
  const created = await create(ws, body);
  expect((await put(created.uploadUrl, file, contentType)).status).toBe(UPLOADED);
  const confirmed = await h.api(ws, 'PATCH', `/media/${created.id}`);
  expect(confirmed.status).toBe(200);
  expect((await confirmed.json()).status).toBe('PROCESSING');
  return { created, media: await h.settled(ws, created.id) };
}

describe('the three-step upload', () => {
  it('returns id, previewUrl and uploadUrl; the media is PROCESSING with nothing known yet', async () => {
    const created = await create('ws-up');
    expect(created.uploadUrl).toMatch(new RegExp(`^${h.root}/storage/uploads/${created.id}\\?expires=\\d+&sig=[0-9a-f]{64}$`));
    expect(created.previewUrl).toMatch(new RegExp(`^${h.root}/storage/files/${created.id}/preview\\?expires=\\d+&sig=`));
    const media = await (await h.api('ws-up', 'GET', `/media/${created.id}`)).json();
    expect(media).toEqual({
      id: created.id,
      name: 'file',
      path: null,
      preview: null,
      type: null,
      status: 'PROCESSING',
      specs: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      errorReason: null,
    });
  });

  it('answers the PUT with 201 text/plain and serves the file at previewUrl right after', async () => {
    const file = await jpeg(64, 48);
    const created = await create('ws-up');
    const res = await put(created.uploadUrl, file, 'image/jpeg');
    expect(res.status).toBe(UPLOADED);
    if (STORE === 'fs') expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const preview = await fetch(created.previewUrl);
    expect(preview.status).toBe(200);
    expect(preview.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await preview.arrayBuffer()).equals(file)).toBe(true);
  });

  it('measures a JPEG: type, width, height, size, duration null; path and preview are signed URLs that work', async () => {
    const file = await jpeg(800, 600);
    const { media } = await uploadAndProcess('ws-up', file, 'image/jpeg');
    expect(media).toMatchObject({
      status: 'SUCCESS',
      type: 'image/jpeg',
      specs: { width: 800, height: 600, duration: null, fileSizeBytes: file.length },
    });
    const original = Buffer.from(await (await fetch(media.path)).arrayBuffer());
    expect(original.equals(file)).toBe(true);
    const thumb = await sharp(Buffer.from(await (await fetch(media.preview)).arrayBuffer())).metadata();
    expect(thumb).toMatchObject({ format: 'jpeg', width: 640, height: 480 });
  });

  it('measures a PNG and replaces declared specs that disagree with the file', async () => {
    const file = await png(300, 200);
    const { media } = await uploadAndProcess('ws-up', file, 'image/png', { width: 9999, height: 1, duration: 12, fileSize: 5 });
    expect(media).toMatchObject({
      status: 'SUCCESS',
      type: 'image/png',
      specs: { width: 300, height: 200, duration: null, fileSizeBytes: file.length },
    });
  });

  it('measures a GIF', async () => {
    const file = await gif(120, 80);
    const { media } = await uploadAndProcess('ws-up', file, 'image/gif');
    expect(media).toMatchObject({ status: 'SUCCESS', type: 'image/gif', specs: { width: 120, height: 80, duration: null } });
  });

  it('measures an MP4 with ffprobe (size, duration) and previews a frame', async () => {
    const file = await mp4(320, 240, 2, 25);
    const { media } = await uploadAndProcess('ws-up', file, 'video/mp4');
    expect(media).toMatchObject({ status: 'SUCCESS', type: 'video/mp4', specs: { width: 320, height: 240, fileSizeBytes: file.length } });
    expect(media.specs.duration).toBeCloseTo(2, 1);
    const frame = await sharp(Buffer.from(await (await fetch(media.preview)).arrayBuffer())).metadata();
    expect(frame).toMatchObject({ format: 'jpeg', width: 320, height: 240 });
    // fps is not in the HTTP Media of the spec; other services read it over gRPC.
    const { items } = await grpc.call('BatchGetMedia', { ids: [media.id] }, { workspaceId: 'ws-up' });
    expect(items[0]).toMatchObject({ kind: 'VIDEO', mime_type: 'video/mp4', width: 320, height: 240, fps: 25 });
  });

  it('takes the type from the bytes, not from Content-Type', async () => {
    const file = await png(50, 40);
    const { media } = await uploadAndProcess('ws-up', file, 'image/jpeg');
    expect(media).toMatchObject({ status: 'SUCCESS', type: 'image/png' });
  });

  it.each([
    ['a corrupt JPEG', corruptJpeg(), 'image/jpeg', /image could not be decoded/],
    ['a corrupt MP4', corruptMp4(), 'video/mp4', /video could not be decoded/],
    [
      'a file of no known type',
      Buffer.from('plain text, not media '.repeat(20)),
      'image/png',
      /not a supported image, video or audio format/,
    ],
  ])('turns %s into ERROR with the reason', async (_what, file, type, reason) => {
    const { media } = await uploadAndProcess('ws-up', file, type);
    expect(media).toMatchObject({ status: 'ERROR', path: null, preview: null, type: null, specs: null });
    expect(media.errorReason).toMatch(reason);
  });

  it('refuses a Content-Type that is not an accepted media type with 415', async () => {
    const created = await create('ws-up');
    const res = await put(created.uploadUrl, Buffer.from('x'), 'text/html');
    expect(res.status).toBe(415);
    expect((await res.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('enforces the size limit by Content-Length with 413', async () => {
    const created = await create('ws-up');
    const res = await put(created.uploadUrl, Buffer.alloc(4 * 1024 * 1024 + 1), 'video/mp4');
    expect(res.status).toBe(413);
  });

  it('enforces the size limit while streaming a body without Content-Length, keeping nothing', async () => {
    const created = await create('ws-up');
    let sent = 0;
    const body = new ReadableStream({
      pull(controller) {
        if (sent >= 8 * 1024 * 1024) return controller.close();
        sent += 256 * 1024;
        controller.enqueue(new Uint8Array(256 * 1024));
      },
    });
    const res = await put(created.uploadUrl, body, 'video/mp4', { duplex: 'half' } as RequestInit).catch((e) => e as Error);
    // The server answers 413 and closes; depending on timing the client sees the 413 or a reset.
    if (res instanceof Response) expect(res.status).toBe(413);
    const confirm = await h.api('ws-up', 'PATCH', `/media/${created.id}`);
    expect(confirm.status).toBe(409);
    expect((await confirm.json()).error.code).toBe('UPLOAD_NOT_RECEIVED');
  });

  it('keeps nothing of an upload interrupted half-way: no file appears, the media is still waiting for one', async () => {
    const created = await create('ws-up');
    const before = await h.store.files();
    // Chunked (no Content-Length), so the body goes through the service to the store on either backend.
    const req = http.request(created.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4', 'transfer-encoding': 'chunked' },
    });
    req.on('error', () => undefined);
    req.write(Buffer.alloc(1536 * 1024, 1));
    await new Promise((r) => setTimeout(r, 500));
    expect(await h.store.files()).toEqual(before); // half-way: nothing visible
    req.destroy();
    await new Promise((r) => setTimeout(r, 1000));
    expect(await h.store.files()).toEqual(before);
    if (h.store.kind === 'fs') expect(readdirSync(join(h.store.location, '.incoming'))).toEqual([]); // the temporary file is gone too
    const confirm = await h.api('ws-up', 'PATCH', `/media/${created.id}`);
    expect(confirm.status).toBe(409);
    expect((await confirm.json()).error.code).toBe('UPLOAD_NOT_RECEIVED');
  });

  it('refuses an expired address with 403', async () => {
    const created = await create('ws-up');
    const signer = new UrlSigner(h.env['STORAGE_SIGNING_SECRET'] ?? 'dev-only-storage-secret-change-me', h.root);
    const expired = signer.sign('PUT', uploadPath(created.id), new Date(Date.now() - 1000));
    const res = await put(expired, await jpeg(10, 10), 'image/jpeg');
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('FORBIDDEN');
  });

  it.each([
    [
      'a changed signature',
      (u: URL) =>
        u.searchParams.set(
          'sig',
          u.searchParams.get('sig')!.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
        ),
    ],
    ['a later expiry', (u: URL) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))],
    ['another media id', (u: URL) => (u.pathname = u.pathname.replace(/[^/]+$/, '0123456789abcdef01234567'))],
    ['no signature', (u: URL) => u.searchParams.delete('sig')],
  ])('refuses an address with %s with 403', async (_what, tamper) => {
    const created = await create('ws-up');
    const url = new URL(created.uploadUrl);
    tamper(url);
    expect((await put(url.toString(), await jpeg(10, 10), 'image/jpeg')).status).toBe(403);
  });

  it('refuses a GET of a file with a tampered signature with 403', async () => {
    const { media } = await uploadAndProcess('ws-up', await jpeg(20, 20), 'image/jpeg');
    const url = new URL(media.path);
    url.pathname = url.pathname.replace('/original', '/preview');
    expect((await fetch(url)).status).toBe(403);
  });

  it('lets a PUT replace an unconfirmed upload, and refuses a replay after the confirmation with 409', async () => {
    const created = await create('ws-up');
    expect((await put(created.uploadUrl, await jpeg(10, 10), 'image/jpeg')).status).toBe(UPLOADED);
    expect((await put(created.uploadUrl, await png(30, 20), 'image/png')).status).toBe(UPLOADED);
    expect((await h.api('ws-up', 'PATCH', `/media/${created.id}`)).status).toBe(200);
    const replay = await put(created.uploadUrl, await jpeg(10, 10), 'image/jpeg');
    expect(replay.status).toBe(409);
    expect((await replay.json()).error.code).toBe('UPLOAD_ALREADY_CONFIRMED');
    const media = await h.settled('ws-up', created.id);
    expect(media).toMatchObject({ type: 'image/png', specs: { width: 30, height: 20 } });
  });

  it('confirms idempotently: a second PATCH answers the current state', async () => {
    const { created, media } = await uploadAndProcess('ws-up', await jpeg(10, 10), 'image/jpeg');
    const again = await h.api('ws-up', 'PATCH', `/media/${created.id}`);
    expect(again.status).toBe(200);
    expect((await again.json()).status).toBe(media.status);
  });

  it('refuses to confirm before anything was uploaded with 409', async () => {
    const created = await create('ws-up');
    const res = await h.api('ws-up', 'PATCH', `/media/${created.id}`);
    expect(res.status).toBe(409);
  });

  it.each([
    ['a missing name', { destinationType: 'POST_MEDIA' }, '/name'],
    ['an unknown destinationType', { name: 'x', destinationType: 'STORY' }, '/destinationType'],
    ['a negative width', { name: 'x', destinationType: 'POST_MEDIA', width: -1 }, '/width'],
    ['a fileSize over the upload limit', { name: 'x', destinationType: 'POST_MEDIA', fileSize: 4 * 1024 * 1024 + 1 }, '/fileSize'],
    ['an unknown field', { name: 'x', destinationType: 'POST_MEDIA', color: 'red' }, '/color'],
  ])('rejects a POST /media with %s with 400', async (_what, body, path) => {
    const res = await h.api('ws-up', 'POST', '/media', body);
    expect(res.status).toBe(400);
    expect((await res.json()).error.details.map((d: { path: string }) => d.path)).toContain(path);
  });
});

describe('workspaces', () => {
  it('answers 404 for GET, PATCH and DELETE of a media of another workspace, and BatchGetMedia leaves it out', async () => {
    const created = await create('ws-owner');
    await put(created.uploadUrl, await jpeg(10, 10), 'image/jpeg');
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const res = await h.api('ws-intruder', method, `/media/${created.id}`);
      expect([method, res.status]).toEqual([method, 404]);
    }
    expect((await h.api('ws-intruder', 'GET', '/media/nope')).status).toBe(404);
    const { items } = await grpc.call('BatchGetMedia', { ids: [created.id] }, { workspaceId: 'ws-intruder' });
    expect(items).toEqual([]);
    expect((await h.api('ws-owner', 'GET', `/media/${created.id}`)).status).toBe(200);
  });
});

describe('DELETE /media/{id}', () => {
  it('removes metadata, file and preview and answers {"success": true}', async () => {
    const { created, media } = await uploadAndProcess('ws-del', await jpeg(100, 100), 'image/jpeg');
    const res = await h.api('ws-del', 'DELETE', `/media/${created.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect((await h.api('ws-del', 'GET', `/media/${created.id}`)).status).toBe(404);
    expect((await fetch(media.path)).status).toBe(404);
    expect((await fetch(media.preview)).status).toBe(404);
  });

  it('refuses with 409 while a scheduled post uses the media', async () => {
    const created = await create('ws-del');
    usage.scheduled = 1;
    try {
      const res = await h.api('ws-del', 'DELETE', `/media/${created.id}`);
      expect(res.status).toBe(409);
      expect((await res.json()).error.code).toBe('MEDIA_IN_USE');
    } finally {
      usage.scheduled = 0;
    }
    expect((await h.api('ws-del', 'GET', `/media/${created.id}`)).status).toBe(200);
  });
});

describe('unconfirmed uploads', () => {
  it('are deleted with their file by the sweep once older than the TTL, confirmed ones are kept', async () => {
    const unconfirmed = await create('ws-sweep');
    await put(unconfirmed.uploadUrl, await jpeg(10, 10), 'image/jpeg');
    const { created: confirmed } = await uploadAndProcess('ws-sweep', await jpeg(10, 10), 'image/jpeg');
    expect(await h.worker.sweepNow()).toBe(0);
    const ttlMs = 1440 * 60_000;
    expect(await h.worker.sweepNow(new Date(Date.now() + ttlMs + 60_000))).toBeGreaterThanOrEqual(1);
    expect((await h.api('ws-sweep', 'GET', `/media/${unconfirmed.id}`)).status).toBe(404);
    expect((await fetch(unconfirmed.previewUrl)).status).toBe(404);
    expect((await h.api('ws-sweep', 'GET', `/media/${confirmed.id}`)).status).toBe(200);
  });
});

describe('gRPC MediaService', () => {
  it('streams a file with ReadMediaFile in chunks, byte for byte', async () => {
    const file = await mp4(640, 360, 3, 30);
    const { media } = await uploadAndProcess('ws-grpc', file, 'video/mp4');
    const chunks: Buffer[] = [];
    let first: { mime_type: string; total_bytes: number } | undefined;
    for await (const chunk of grpc.stream('ReadMediaFile', { id: media.id }, { workspaceId: 'ws-grpc' })) {
      first ??= chunk;
      chunks.push(chunk.data);
    }
    expect(first).toMatchObject({ mime_type: 'video/mp4', total_bytes: file.length });
    expect(Buffer.concat(chunks).equals(file)).toBe(true);
  });

  it('answers NOT_FOUND for a file of another workspace', async () => {
    const { media } = await uploadAndProcess('ws-grpc', await jpeg(10, 10), 'image/jpeg');
    const read = async () => {
      for await (const _ of grpc.stream('ReadMediaFile', { id: media.id }, { workspaceId: 'ws-other' })) void _;
    };
    await expect(read()).rejects.toMatchObject({ status: 404 });
  });
});
