import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { parseAllowCidrs } from '@social/url-guard';
import type { ResolvedAddress } from '../src/domain/import/safe-fetch';
import type { FileStore, MediaRecords } from '../src/domain/ports';
import { ProcessMedia } from '../src/domain/processing/process-media.use-case';
import { jpeg, mp4, startTlsServer, type TlsServer } from './fixtures';
import { startMedia, type Harness } from './harness';

const MB = 1024 * 1024;
let h: Harness;
let tls: TlsServer;
let video: Buffer;
let image: Buffer;
/** Test DNS: names to answers; a list answers in turn (the last one repeats). */
const dns = new Map<string, string[]>();
const lookups = new Map<string, number>();

const resolver = async (host: string): Promise<ResolvedAddress[]> => {
  const answers = dns.get(host);
  if (!answers) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  const n = lookups.get(host) ?? 0;
  lookups.set(host, n + 1);
  const address = answers[Math.min(n, answers.length - 1)]!;
  return [{ address, family: address.includes(':') ? 6 : 4 }];
};

function files(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url!, 'https://x');
  const p = url.pathname;
  if (p === '/video.mp4') return res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': video.length }).end(video);
  if (p === '/photo.jpg') return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(image);
  if (p === '/hop') {
    const left = Number(url.searchParams.get('n'));
    return res.writeHead(302, { location: left > 0 ? `/hop?n=${left - 1}` : '/photo.jpg' }).end();
  }
  if (p === '/to-http') return res.writeHead(301, { location: `http://files.example.test:${tls.port}/photo.jpg` }).end();
  if (p === '/to-private') return res.writeHead(302, { location: 'https://10.0.0.7/photo.jpg' }).end();
  if (p === '/to-metadata') return res.writeHead(307, { location: `https://metadata.example.test:${tls.port}/photo.jpg` }).end();
  if (p === '/missing') return res.writeHead(404).end('no');
  if (p === '/huge-declared') return res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': 50 * MB }).end();
  if (p === '/endless') {
    res.writeHead(200, { 'content-type': 'video/mp4' });
    const chunk = Buffer.alloc(256 * 1024, 1);
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    return pump();
  }
  if (p === '/big-image') return res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': 2 * MB }).end(Buffer.alloc(2 * MB));
  if (p === '/cut') {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': 100000 });
    res.write(video.subarray(0, 1000));
    return setTimeout(() => res.destroy(), 50);
  }
  if (p === '/slow') return setTimeout(() => res.writeHead(200).end(image), 5000);
  res.writeHead(500).end();
}

beforeAll(async () => {
  [video, image] = await Promise.all([mp4(320, 180, 1, 24), jpeg(400, 300)]);
  tls = await startTlsServer(files);
  dns.set('files.example.test', ['127.0.0.1']);
  dns.set('metadata.example.test', ['169.254.169.254']);
  dns.set('private.example.test', ['192.168.0.10']);
  dns.set('v6-local.example.test', ['fd00::1']);
  dns.set('mapped.example.test', ['::ffff:10.0.0.1']);
  dns.set('untrusted.example.test', ['127.0.0.1']);
  h = await startMedia(
    {
      // The local test server is on 127.0.0.1: exactly that address is exempt, nothing else.
      IMPORT_ALLOW_CIDRS: '127.0.0.1/32',
      IMPORT_MAX_VIDEO_BYTES: String(3 * MB),
      IMPORT_MAX_IMAGE_BYTES: String(1 * MB),
      IMPORT_TOTAL_TIMEOUT_MS: '2000',
      IMPORT_MAX_REDIRECTS: '3',
    },
    { resolver, ca: tls.ca, usage: { count: async () => ({ total: 0, scheduled: 0 }) } },
  );
});
afterAll(async () => {
  await h?.stop();
  await tls?.close();
});

const importUrl = (ws: string, fileUrl: string) =>
  h.api(ws, 'POST', '/media/from-url', { name: 'imported', destinationType: 'POST_MEDIA', fileUrl });

async function importAndSettle(fileUrl: string) {
  const res = await importUrl('ws-imp', fileUrl);
  expect(res.status).toBe(201);
  const created = await res.json();
  return h.settled('ws-imp', created.id);
}

describe('POST /media/from-url', () => {
  it('answers 201 PROCESSING with path, preview, type and specs null, then fetches over HTTPS and measures the video', async () => {
    const res = await importUrl('ws-imp', tls.url('files.example.test', '/video.mp4'));
    expect(res.status).toBe(201);
    const created = await res.json();
    expect(created).toMatchObject({ status: 'PROCESSING', path: null, preview: null, type: null, specs: null, name: 'imported' });
    const media = await h.settled('ws-imp', created.id);
    expect(media).toMatchObject({ status: 'SUCCESS', type: 'video/mp4', specs: { width: 320, height: 180, fileSizeBytes: video.length } });
    expect(Buffer.from(await (await fetch(media.path)).arrayBuffer()).equals(video)).toBe(true);
  });

  it('follows HTTPS redirects within the limit', async () => {
    const media = await importAndSettle(tls.url('files.example.test', '/hop?n=2'));
    expect(media).toMatchObject({ status: 'SUCCESS', type: 'image/jpeg', specs: { width: 400, height: 300 } });
  });

  it.each([
    ['more redirects than allowed', '/hop?n=5', /more than 3 redirects/],
    ['a redirect to plain HTTP', '/to-http', /redirect to http:.*must use https/],
    ['a redirect to a private address', '/to-private', /redirect to https:\/\/10\.0\.0\.7.*private/],
    ['a redirect to a name resolving to link-local', '/to-metadata', /non-public address.*169\.254\.169\.254.*link-local/],
    ['an HTTP error', '/missing', /HTTP 404/],
    ['a declared Content-Length over the video limit', '/huge-declared', /larger than the import limit of 3 MB/],
    ['a body that goes on past the video limit', '/endless', /larger than the import limit of 3 MB/],
    ['an image over the image limit', '/big-image', /larger than the import limit of 1 MB for images/],
    ['a connection cut mid-body', '/cut', /fetching fileUrl failed/],
    ['a server slower than the total timeout', '/slow', /took longer than 2000 ms/],
  ])('turns %s into ERROR with the reason', async (_what, path, reason) => {
    const media = await importAndSettle(tls.url('files.example.test', path));
    expect(media.status).toBe('ERROR');
    expect(media.errorReason).toMatch(reason);
  });

  it('fails the job for a retry, and blames no URL, when the store breaks off while the file arrives', async () => {
    // The worker's job with a store whose own connection breaks: an infrastructure failure.
    const media = { _id: 'm-store-down', source: 'URL', status: 'PROCESSING', fileUrl: tls.url('files.example.test', '/video.mp4') };
    const updates: unknown[] = [];
    const repo = {
      findById: async () => ({ ...media, fileId: null }),
      updateIf: async (...args: unknown[]) => (updates.push(args), null),
    } as unknown as MediaRecords;
    const store = {
      async write(source: Readable) {
        for await (const _ of source) break; // some bytes arrived, then the store's socket broke
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      },
    } as unknown as FileStore;
    const job = new ProcessMedia({
      repo,
      store,
      fetchPolicy: {
        resolver,
        ca: tls.ca,
        allow: parseAllowCidrs('127.0.0.1/32'),
        connectTimeoutMs: 2000,
        totalTimeoutMs: 2000,
        maxRedirects: 0,
      },
      limits: { importMaxVideoBytes: 3 * MB, importMaxImageBytes: MB },
    });

    await expect(job.execute(media._id)).rejects.toThrow('socket hang up');
    expect(updates).toEqual([]); // still PROCESSING, not ERROR: the broker delivers the job again
  });

  it('turns a certificate that is not trusted into ERROR', async () => {
    const other = await startTlsServer((_req, res) => res.end('x'));
    try {
      // Trusted CA is the first server's; this one has its own.
      const media = await importAndSettle(other.url('untrusted.example.test', '/photo.jpg'));
      expect(media.status).toBe('ERROR');
      expect(media.errorReason).toMatch(/certificate/);
    } finally {
      await other.close();
    }
  });

  it('does not let DNS rebinding through: a name that was public at the check and private at connect → ERROR', async () => {
    dns.set('rebind.example.test', ['93.184.216.34', '127.0.0.2']);
    const media = await importAndSettle(tls.url('rebind.example.test', '/photo.jpg'));
    expect(media.status).toBe('ERROR');
    expect(media.errorReason).toMatch(/127\.0\.0\.2 is a loopback address/);
    expect(lookups.get('rebind.example.test')).toBeGreaterThanOrEqual(2);
  });

  it.each([
    ['http://files.example.test/photo.jpg', /must use https/],
    ['https://localhost/photo.jpg', /local host name/],
    ['https://127.0.0.2/photo.jpg', /loopback/],
    ['https://2130706434/photo.jpg', /loopback/],
    ['https://0x7f.0.0.2/photo.jpg', /loopback/],
    ['https://[::1]/photo.jpg', /loopback/],
    ['https://[::ffff:10.0.0.1]/photo.jpg', /IPv4-mapped/],
    ['https://169.254.169.254/latest/meta-data/', /link-local/],
    ['https://100.64.1.1/photo.jpg', /carrier-grade NAT/],
    ['https://metadata.example.test/photo.jpg', /resolves to a non-public address.*link-local/],
    ['https://private.example.test/photo.jpg', /resolves to a non-public address.*private/],
    ['https://v6-local.example.test/photo.jpg', /unique-local/],
    ['https://mapped.example.test/photo.jpg', /IPv4-mapped/],
    ['https://nowhere.example.test/photo.jpg', /does not resolve/],
    ['ftp://files.example.test/photo.jpg', /must use https/],
    ['files.example.test/photo.jpg', /not a valid absolute URL/],
  ])('rejects %s with 400 INVALID_FILE_URL and the reason, creating nothing', async (fileUrl, reason) => {
    const res = await importUrl('ws-rejected', fileUrl);
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('INVALID_FILE_URL');
    expect(error.details[0].path).toBe('/fileUrl');
    expect(error.details[0].message).toMatch(reason);
  });

  it('validates the body with 400 VALIDATION_FAILED', async () => {
    const res = await h.api('ws-imp', 'POST', '/media/from-url', { name: 'x', destinationType: 'POST_MEDIA' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.details[0].path).toBe('/fileUrl');
  });
});
