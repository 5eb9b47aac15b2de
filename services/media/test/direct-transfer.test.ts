import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { jpeg, mp4 } from './fixtures';
import { startMedia, type Harness } from './harness';
import { STORE } from './store-env';

// MEDIA_STORE=s3: signed uploads and downloads are answered with a presigned address of the store,
// so file bytes go between the client and the store only.
const describeS3 = STORE === 's3' ? describe : describe.skip;

let h: Harness;
/** A TCP relay in front of the service that counts what clients send it. */
let relay: net.Server;
let relayPort = 0;
let bytesToService = 0;

beforeAll(async () => {
  if (STORE !== 's3') return;
  h = await startMedia({ MAX_UPLOAD_BYTES: String(8 * 1024 * 1024) }, { usage: { count: async () => ({ total: 0, scheduled: 0 }) } });
  const servicePort = Number(new URL(h.root).port);
  relay = net.createServer((client) => {
    const upstream = net.connect(servicePort, '127.0.0.1');
    client.on('data', (d) => (bytesToService += d.length));
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  relayPort = (relay.address() as net.AddressInfo).port;
});
afterAll(async () => {
  if (STORE !== 's3') return;
  relay.close();
  await h.stop();
});

/** A PUT as curl makes it for a large body: headers with `Expect: 100-continue`, the body only after "100 Continue". */
function putExpectingContinue(
  url: string,
  body: Buffer,
  contentType: string,
): Promise<{ status: number; location?: string; bodySent: boolean }> {
  return new Promise((resolve, reject) => {
    let bodySent = false;
    const req = http.request(url, {
      method: 'PUT',
      headers: { 'content-type': contentType, 'content-length': body.length, expect: '100-continue' },
    });
    req.on('continue', () => {
      bodySent = true;
      req.end(body);
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode!, ...(res.headers.location ? { location: res.headers.location } : {}), bodySent });
      req.destroy();
    });
    req.on('error', reject);
  });
}

// Node's fetch follows a 307 with the same body when it is a Blob (it cannot replay a Buffer it sent).
describeS3('direct transfers (MEDIA_STORE=s3)', () => {
  it('redirects the signed PUT to the store before any byte of the body reaches the service; the upload is confirmed and processed', async () => {
    const file = Buffer.concat([await mp4(320, 240, 1, 10), randomBytes(0)]);
    const padded = Buffer.concat([file, Buffer.alloc(0)]);
    const created = await (await h.api('ws-direct', 'POST', '/media', { name: 'clip', destinationType: 'POST_MEDIA' })).json();
    const viaRelay = created.uploadUrl.replace(h.root, `http://127.0.0.1:${relayPort}`);
    bytesToService = 0;
    const first = await putExpectingContinue(viaRelay, padded, 'video/mp4');
    expect(first.status).toBe(307);
    expect(first.bodySent).toBe(false);
    expect(bytesToService).toBeLessThan(2048); // the request head only
    expect(first.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/t[0-9a-f]+\/[0-9a-f]{24}\?.*X-Amz-Signature=/);
    const stored = await fetch(first.location!, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: padded });
    expect(stored.status).toBe(200);
    // Readable at previewUrl right after the upload, as with uploads through the service.
    const early = await fetch(created.previewUrl);
    expect(early.status).toBe(200);
    expect(Buffer.from(await early.arrayBuffer()).equals(padded)).toBe(true);
    expect((await h.api('ws-direct', 'PATCH', `/media/${created.id}`)).status).toBe(200);
    const media = await h.settled('ws-direct', created.id);
    expect(media).toMatchObject({ status: 'SUCCESS', type: 'video/mp4', specs: { width: 320, height: 240, fileSizeBytes: padded.length } });
    // Downloads: 307 to a presigned GET; the bytes and a range come from the store.
    const hop = await fetch(media.path, { redirect: 'manual' });
    expect(hop.status).toBe(307);
    expect(hop.headers.get('location')).toContain('X-Amz-Signature=');
    expect(Buffer.from(await (await fetch(media.path)).arrayBuffer()).equals(padded)).toBe(true);
    const ranged = await fetch(media.path, { headers: { range: 'bytes=4-11' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(padded.subarray(4, 12))).toBe(true);
  });

  it('keeps the 403/409/413/415 answers of the service, and the store refuses a body other than the one signed', async () => {
    const created = await (await h.api('ws-direct', 'POST', '/media', { name: 'x', destinationType: 'POST_MEDIA' })).json();
    expect(
      (
        await fetch(created.uploadUrl.replace(/sig=[0-9a-f]{4}/, 'sig=0000'), {
          method: 'PUT',
          headers: { 'content-type': 'image/jpeg' },
          body: 'x',
          redirect: 'manual',
        })
      ).status,
    ).toBe(403);
    expect(
      (await fetch(created.uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: 'x', redirect: 'manual' })).status,
    ).toBe(415);
    expect(
      (
        await fetch(created.uploadUrl, {
          method: 'PUT',
          headers: { 'content-type': 'video/mp4' },
          body: Buffer.alloc(8 * 1024 * 1024 + 1),
          redirect: 'manual',
        })
      ).status,
    ).toBe(413);
    const hop = await fetch(created.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'image/jpeg' },
      body: Buffer.alloc(10),
      redirect: 'manual',
    });
    expect(hop.status).toBe(307);
    // The presigned address is for 10 bytes of image/jpeg only.
    const longer = await fetch(hop.headers.get('location')!, {
      method: 'PUT',
      headers: { 'content-type': 'image/jpeg' },
      body: Buffer.alloc(11),
    });
    expect(longer.status).toBe(403);
    const otherType = await fetch(hop.headers.get('location')!, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4' },
      body: Buffer.alloc(10),
    });
    expect(otherType.status).toBe(403);
    expect((await h.api('ws-direct', 'PATCH', `/media/${created.id}`)).status).toBe(409); // nothing stored yet
    const file = await jpeg(20, 20);
    expect(
      (await fetch(created.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: new Blob([file]) })).status,
    ).toBe(200);
    expect((await h.api('ws-direct', 'PATCH', `/media/${created.id}`)).status).toBe(200);
    const replay = await fetch(created.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'image/jpeg' },
      body: file,
      redirect: 'manual',
    });
    expect(replay.status).toBe(409);
    await h.settled('ws-direct', created.id);
  });

  it('leaves no object behind for a deleted media or an unconfirmed direct upload', async () => {
    const before = await h.store.files();
    const a = await (await h.api('ws-direct', 'POST', '/media', { name: 'a', destinationType: 'POST_MEDIA' })).json();
    expect(
      (await fetch(a.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: new Blob([await jpeg(10, 10)]) })).status,
    ).toBe(200);
    const b = await (await h.api('ws-direct', 'POST', '/media', { name: 'b', destinationType: 'POST_MEDIA' })).json();
    expect(
      (await fetch(b.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: new Blob([await jpeg(10, 10)]) })).status,
    ).toBe(200);
    expect((await h.api('ws-direct', 'PATCH', `/media/${b.id}`)).status).toBe(200);
    await h.settled('ws-direct', b.id);
    expect((await h.store.files()).length).toBe(before.length + 3); // a, b and b's preview
    expect((await h.api('ws-direct', 'DELETE', `/media/${b.id}`)).status).toBe(200);
    await h.worker.sweepNow(new Date(Date.now() + 1441 * 60_000));
    expect((await h.api('ws-direct', 'GET', `/media/${a.id}`)).status).toBe(404);
    expect((await h.store.files()).sort()).toEqual([...before].sort());
  });
});
