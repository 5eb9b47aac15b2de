import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, randomBytes } from 'node:crypto';
import { signWebhook, verifyWebhook, WebhookVerificationError } from './webhooks';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const now = new Date('2030-01-01T00:00:00Z');
const ts = Math.floor(now.getTime() / 1000);
const body = JSON.stringify({ type: 'post.published', data: { postId: 'p1' } });

/** The signature computed independently of the code under test, from the Standard Webhooks recipe. */
const reference = (s: string, id: string, t: number, b: string) =>
  `v1,${createHmac('sha256', Buffer.from(s.slice(6), 'base64'))
    .update(`${id}.${t}.${b}`)
    .digest('base64')}`;

describe('webhook signatures (Standard Webhooks)', () => {
  it('signs as the recipe says', () => {
    expect(signWebhook(secret, 'msg_1', ts, body)).toBe(reference(secret, 'msg_1', ts, body));
  });

  it('verifies a webhook received by a real HTTP server, from its raw body and headers', async () => {
    let result: unknown;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        try {
          result = verifyWebhook(secret, req.headers, Buffer.concat(chunks), { now });
          res.writeHead(204).end();
        } catch (err) {
          result = err;
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(ts),
        'webhook-signature': `v1,bm90IGl0 ${reference(secret, 'msg_1', ts, body)}`,
      },
      body,
    });
    server.close();
    expect(res.status).toBe(204);
    expect(result).toEqual({ type: 'post.published', data: { postId: 'p1' } });
  });

  const headers = (over: Record<string, string> = {}) => ({
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(ts),
    'webhook-signature': reference(secret, 'msg_1', ts, body),
    ...over,
  });

  it.each([
    ['a changed body', headers(), `${body} `],
    ['another id', headers({ 'webhook-id': 'msg_2' }), body],
    ['another secret', headers({ 'webhook-signature': reference(`whsec_${randomBytes(24).toString('base64')}`, 'msg_1', ts, body) }), body],
    [
      'a timestamp 6 minutes old',
      headers({ 'webhook-timestamp': String(ts - 360), 'webhook-signature': reference(secret, 'msg_1', ts - 360, body) }),
      body,
    ],
    [
      'a timestamp 6 minutes ahead',
      headers({ 'webhook-timestamp': String(ts + 360), 'webhook-signature': reference(secret, 'msg_1', ts + 360, body) }),
      body,
    ],
    ['a v2 signature', headers({ 'webhook-signature': reference(secret, 'msg_1', ts, body).replace('v1,', 'v2,') }), body],
    ['no signature', headers({ 'webhook-signature': '' }), body],
  ])('refuses %s', (_case, h, b) => {
    expect(() => verifyWebhook(secret, h, b, { now })).toThrow(WebhookVerificationError);
  });

  it('accepts a timestamp 4 minutes old and reads fetch Headers', () => {
    const h = new Headers(
      headers({ 'webhook-timestamp': String(ts - 240), 'webhook-signature': reference(secret, 'msg_1', ts - 240, body) }),
    );
    expect(verifyWebhook(secret, h, body, { now })).toMatchObject({ type: 'post.published' });
  });

  it('accepts a header with two signatures during a secret rotation, with either secret, and no other', () => {
    const previous = `whsec_${randomBytes(32).toString('base64')}`;
    const h = headers({ 'webhook-signature': `${reference(secret, 'msg_1', ts, body)} ${reference(previous, 'msg_1', ts, body)}` });
    expect(verifyWebhook(secret, h, body, { now })).toMatchObject({ type: 'post.published' });
    expect(verifyWebhook(previous, h, body, { now })).toMatchObject({ type: 'post.published' });
    expect(() => verifyWebhook(`whsec_${randomBytes(32).toString('base64')}`, h, body, { now })).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(previous, h, `${body} `, { now })).toThrow(WebhookVerificationError);
  });
});
