import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { jpegIsQuality100 } from './fixtures';
import { startMedia, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startMedia({}, { usage: { count: async () => ({ total: 0, scheduled: 0 }) } });
});
afterAll(() => h.stop());

const generate = (body: unknown, ws = 'ws-gen') => h.api(ws, 'POST', '/assistant/generate-image', body);
const bytesOf = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

describe('POST /assistant/generate-image (local provider)', () => {
  it('answers 201 with the Media of spec 4.6 and stores a JPEG at quality 100 in sRGB', async () => {
    const res = await generate({ prompt: 'a lighthouse at dusk', aspectRatio: '16:9' });
    expect(res.status).toBe(201);
    const media = await res.json();
    expect(media).toEqual({
      id: expect.any(String),
      name: 'a lighthouse at dusk',
      path: expect.stringContaining('/storage/files/'),
      preview: expect.stringContaining('/preview?'),
      type: 'IMAGE',
      status: 'SUCCESS',
      specs: { width: 1536, height: 864, duration: null, fileSizeBytes: expect.any(Number), fps: null },
    });
    const file = await bytesOf(media.path);
    expect(file.length).toBe(media.specs.fileSizeBytes);
    const meta = await sharp(file).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 1536, height: 864, space: 'srgb', hasProfile: true });
    expect(jpegIsQuality100(file)).toBe(true);
    // Usable as mediaLibId: it is a SUCCESS media of the library.
    const again = await (await h.api('ws-gen', 'GET', `/media/${media.id}`)).json();
    expect(again).toMatchObject({ id: media.id, status: 'SUCCESS', type: 'image/jpeg' });
  });

  it.each([
    ['1:1', undefined, 1024, 1024],
    ['4:5', undefined, 1024, 1280],
    ['9:16', 'standard', 864, 1536],
    ['21:9', undefined, 1344, 576],
    ['1:1', 'hd', 2048, 2048],
    ['3:2', 'hd', 2048, 1360],
  ])('renders %s (%s) at %dx%d', async (aspectRatio, quality, width, height) => {
    const res = await generate({ prompt: 'sizes', aspectRatio, ...(quality ? { quality } : {}) });
    expect(res.status).toBe(201);
    const media = await res.json();
    expect(media.specs).toMatchObject({ width, height });
    expect(await sharp(await bytesOf(media.path)).metadata()).toMatchObject({ width, height });
  });

  it.each([
    [1000, 601, 1008, 608],
    [1023, 1023, 1024, 1024],
    [100, 5000, 256, 2048],
    [256, 2048, 256, 2048],
  ])('snaps targets %dx%d to %dx%d (multiples of 16 within 256..2048)', async (targetWidth, targetHeight, width, height) => {
    const media = await (await generate({ prompt: 'snap', aspectRatio: '1:1', targetWidth, targetHeight })).json();
    expect(media.specs).toMatchObject({ width, height });
    expect(await sharp(await bytesOf(media.path)).metadata()).toMatchObject({ width, height });
  });

  it('is deterministic for a prompt and size, and differs for another prompt', async () => {
    const a = await (await generate({ prompt: 'same prompt', aspectRatio: '1:1', targetWidth: 256, targetHeight: 256 })).json();
    const b = await (await generate({ prompt: 'same prompt', aspectRatio: '1:1', targetWidth: 256, targetHeight: 256 })).json();
    const c = await (await generate({ prompt: 'another prompt', aspectRatio: '1:1', targetWidth: 256, targetHeight: 256 })).json();
    expect(a.id).not.toBe(b.id);
    expect((await bytesOf(a.path)).equals(await bytesOf(b.path))).toBe(true);
    expect((await bytesOf(a.path)).equals(await bytesOf(c.path))).toBe(false);
  });

  it.each([
    ['an unknown aspect ratio', { prompt: 'x', aspectRatio: '7:3' }, '/aspectRatio'],
    ['an unknown quality', { prompt: 'x', aspectRatio: '1:1', quality: 'ultra' }, '/quality'],
    ['a missing prompt', { aspectRatio: '1:1' }, '/prompt'],
    ['a blank prompt', { prompt: '   ', aspectRatio: '1:1' }, '/prompt'],
    ['a missing aspect ratio', { prompt: 'x' }, '/aspectRatio'],
    ['targetWidth without targetHeight', { prompt: 'x', aspectRatio: '1:1', targetWidth: 512 }, '/targetHeight'],
    ['targetHeight without targetWidth', { prompt: 'x', aspectRatio: '1:1', targetHeight: 512 }, '/targetWidth'],
    ['a non-integer target', { prompt: 'x', aspectRatio: '1:1', targetWidth: 512.5, targetHeight: 512 }, '/targetWidth'],
    ['a zero target', { prompt: 'x', aspectRatio: '1:1', targetWidth: 0, targetHeight: 512 }, '/targetWidth'],
  ])('rejects %s with 400', async (_what, body, path) => {
    const res = await generate(body);
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('keeps generated media to the workspace', async () => {
    const media = await (await generate({ prompt: 'mine', aspectRatio: '1:1', targetWidth: 256, targetHeight: 256 }, 'ws-gen-a')).json();
    expect((await h.api('ws-gen-b', 'GET', `/media/${media.id}`)).status).toBe(404);
  });
});

describe('the OpenAI-compatible provider', () => {
  let fake: http.Server;
  let seen: { auth?: string; body?: any }[] = [];
  let mode: 'ok' | 'error' | 'garbage' = 'ok';
  let g: Harness;

  beforeAll(async () => {
    const png = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    fake = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        seen.push({ auth: req.headers.authorization, body: JSON.parse(raw) });
        if (req.url !== '/v1/images/generations') return res.writeHead(404).end();
        if (mode === 'error')
          return res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'content policy' } }));
        if (mode === 'garbage')
          return res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ data: [{ b64_json: Buffer.from('not an image').toString('base64') }] }));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ created: 1, data: [{ b64_json: png.toString('base64') }] }));
      });
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    g = await startMedia(
      {
        IMAGE_PROVIDER: 'openai',
        IMAGE_API_URL: `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1`,
        IMAGE_API_KEY: 'sk-test',
        IMAGE_API_MODEL: 'test-model',
      },
      { usage: { count: async () => ({ total: 0, scheduled: 0 }) } },
    );
  });
  afterAll(async () => {
    await g.stop();
    await new Promise((r) => fake.close(r));
  });
  beforeEach(() => {
    seen = [];
    mode = 'ok';
  });

  it('sends prompt, size, quality and key, and stores the answer at the requested size as JPEG q100', async () => {
    const res = await g.api('ws-ai', 'POST', '/assistant/generate-image', { prompt: 'a cat', aspectRatio: '4:3', quality: 'hd' });
    expect(res.status).toBe(201);
    const media = await res.json();
    expect(seen).toEqual([
      {
        auth: 'Bearer sk-test',
        body: expect.objectContaining({ model: 'test-model', prompt: 'a cat', size: '2048x1536', quality: 'hd', n: 1 }),
      },
    ]);
    const file = Buffer.from(await (await fetch(media.path)).arrayBuffer());
    expect(await sharp(file).metadata()).toMatchObject({ format: 'jpeg', width: 2048, height: 1536, space: 'srgb' });
    expect(jpegIsQuality100(file)).toBe(true);
  });

  it.each([
    ['an error answer', 'error' as const, /HTTP 400: content policy/],
    ['bytes that are not an image', 'garbage' as const, /cannot be decoded/],
  ])('answers 502 IMAGE_PROVIDER_FAILED for %s', async (_what, m, message) => {
    mode = m;
    const res = await g.api('ws-ai', 'POST', '/assistant/generate-image', { prompt: 'a cat', aspectRatio: '1:1' });
    expect(res.status).toBe(502);
    const { error } = await res.json();
    expect(error.code).toBe('IMAGE_PROVIDER_FAILED');
    expect(error.message).toMatch(message);
  });
});
