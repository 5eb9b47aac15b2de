import sharp from 'sharp';
import { TestSystem } from '@social/testkit';
import { STORE, testStore, type TestStore } from '../services/media/test/store-env';
import { apiClient, viaGateway as signedViaGateway } from './support/api';

// Media through the whole system: the gateway with admin-issued keys, the storage host, the media
// service and its worker as separate processes built from dist. Posts is not started, so a delete
// must fail safe (it cannot ask whether a scheduled post uses the media). Jest runs this file on
// each store: project "e2e" on the filesystem, "e2e-s3" on the S3-compatible one (versitygw).
let system: TestSystem;
let store: TestStore;
let gw: string;

beforeAll(async () => {
  store = await testStore();
  system = await TestSystem.start(store.env, ['media', 'media-worker', 'gateway']);
  gw = system.gatewayUrl;
});
afterAll(async () => {
  await system?.destroy();
  await store?.cleanup();
});

interface Creds {
  apiId: string;
  apiKey: string;
}
const workspace = (): Promise<Creds> => system.admin(['workspace', 'create', '--name', 'x', '--json']);
const api = (c: Creds, opts: { retries?: number } = {}) => apiClient(system, c, opts);
/** Signed addresses carry PUBLIC_BASE_URL (the gateway's default address); this system's gateway is on another port. */
const viaGateway = (signed: string) => signedViaGateway(system, signed);

async function settled(c: Creds, mediaId: string) {
  for (let i = 0; i < 300; i++) {
    const media = (await api(c).GET('/media/{mediaId}', { params: { path: { mediaId } } })).data!;
    if (media.status !== 'PROCESSING') return media;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('still PROCESSING');
}

// The storage host's signed addresses (upload, preview, files) are raw HTTP: they carry their own
// signature instead of the API keys, and the typed client only speaks to /v2 with keys.
describe('media through the gateway and the storage host', () => {
  it('uploads in three steps without an API key on the storage host, processes in the worker and serves signed files', async () => {
    const c = await workspace();
    const file = await sharp({ create: { width: 720, height: 480, channels: 3, background: '#884422' } })
      .jpeg()
      .toBuffer();

    const created = await api(c).POST('/media', { body: { name: 'photo.jpg', destinationType: 'POST_MEDIA' } });
    expect(created.response.status).toBe(201);
    const { id, uploadUrl, previewUrl } = created.data!;
    expect(new URL(uploadUrl).pathname).toBe(`/storage/uploads/${id}`);

    // MEDIA_STORE=s3: the storage host answers 307 to the store, which answers 200; fetch follows it
    // with the same body when that is a Blob.
    const put = await fetch(viaGateway(uploadUrl), { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: new Blob([file]) });
    if (STORE === 's3') expect(put.status).toBe(200);
    else {
      expect(put.status).toBe(201);
      expect(put.headers.get('content-type')).toMatch(/^text\/plain/);
    }
    const early = await fetch(viaGateway(previewUrl));
    expect(Buffer.from(await early.arrayBuffer()).equals(file)).toBe(true);

    const confirmed = await api(c).PATCH('/media/{mediaId}', { params: { path: { mediaId: id } } });
    expect(confirmed.response.status).toBe(200);
    expect(confirmed.data!.status).toBe('PROCESSING');
    const media = await settled(c, id);
    expect(media).toMatchObject({
      status: 'SUCCESS',
      type: 'image/jpeg',
      specs: { width: 720, height: 480, duration: null, fileSizeBytes: file.length },
    });
    const original = await fetch(viaGateway(media.path!));
    expect(Buffer.from(await original.arrayBuffer()).equals(file)).toBe(true);
    // The bytes are in this run's store (data directory or bucket): the original and its preview.
    expect((await store.files()).length).toBe(2);

    const replay = await fetch(viaGateway(uploadUrl), { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: file });
    expect(replay.status).toBe(409);
  });

  it('refuses a tampered upload address with 403 and needs API keys for /v2/media', async () => {
    const c = await workspace();
    const { uploadUrl } = (await api(c).POST('/media', { body: { name: 'a', destinationType: 'POST_MEDIA' } })).data!;
    const tampered = viaGateway(uploadUrl).replace(/expires=(\d+)/, (_m, e) => `expires=${Number(e) + 60}`);
    expect((await fetch(tampered, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: 'x' })).status).toBe(403);
    // Raw: a request without the API keys, which the typed client always sends.
    expect((await fetch(`${gw}/v2/media/whatever`)).status).toBe(401);
  });

  it('keeps media to its workspace: 404 for another one', async () => {
    const [a, b] = [await workspace(), await workspace()];
    const { id } = (await api(a).POST('/media', { body: { name: 'a', destinationType: 'POST_MEDIA' } })).data!;
    const media = { params: { path: { mediaId: id } } };
    expect((await api(b).GET('/media/{mediaId}', media)).response.status).toBe(404);
    expect((await api(b).DELETE('/media/{mediaId}', media)).response.status).toBe(404);
    expect((await api(a).GET('/media/{mediaId}', media)).response.status).toBe(200);
  });

  it('rejects a private fileUrl with 400 INVALID_FILE_URL and the reason', async () => {
    const c = await workspace();
    const res = await api(c).POST('/media/from-url', {
      body: { name: 'x', destinationType: 'POST_MEDIA', fileUrl: 'https://169.254.169.254/latest/meta-data' },
    });
    expect(res.response.status).toBe(400);
    expect(res.error!.error).toMatchObject({
      code: 'INVALID_FILE_URL',
      details: [{ path: '/fileUrl', message: expect.stringMatching(/link-local/) }],
    });
  });

  it('generates an image usable as a SUCCESS media, JPEG at the ratio size', async () => {
    const c = await workspace();
    const res = await api(c).POST('/assistant/generate-image', { body: { prompt: 'harbour at night', aspectRatio: '9:16' } });
    expect(res.response.status).toBe(201);
    const media = res.data!;
    expect(media).toMatchObject({ type: 'IMAGE', status: 'SUCCESS', specs: { width: 864, height: 1536, duration: null, fps: null } });
    expect(media).not.toHaveProperty('createdAt');
    const meta = await sharp(Buffer.from(await (await fetch(viaGateway(media.path!))).arrayBuffer())).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 864, height: 1536, space: 'srgb' });
  });

  it('fails safe with 503 on DELETE while the posts service cannot be asked, and keeps the media', async () => {
    const c = await workspace();
    const { id } = (await api(c).POST('/media', { body: { name: 'a', destinationType: 'POST_MEDIA' } })).data!;
    const media = { params: { path: { mediaId: id } } };
    // No retries: the 503 asserted is the first answer, not one left after the client's retries.
    const res = await api(c, { retries: 0 }).DELETE('/media/{mediaId}', media);
    expect(res.response.status).toBe(503);
    expect(res.error!.error.code).toBe('SERVICE_UNAVAILABLE');
    expect((await api(c).GET('/media/{mediaId}', media)).response.status).toBe(200);
  });
});
