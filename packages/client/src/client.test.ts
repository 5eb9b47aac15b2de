import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSocialClient } from './client';
import { retryAfterMs } from './retry';

/** A real local server whose answers the test scripts per request; it records what it received. */
function scriptedServer() {
  const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string; at: number }[] = [];
  let answers: ((res: http.ServerResponse) => void)[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, at: Date.now() });
      const answer = answers.shift() ?? json(201, { id: 'l1', name: 'x', color: '#000000' });
      answer(res);
    });
  });
  return {
    seen,
    script: (...a: ((res: http.ServerResponse) => void)[]) => (answers = a),
    listen: () =>
      new Promise<string>((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`))),
    close: () => new Promise((r) => server.close(r)),
  };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (res: http.ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const dropConnection = () => (res: http.ServerResponse) => res.socket?.destroy();
const error = (code: string) => ({ error: { code, message: code, details: [], requestId: 'r' } });

const server = scriptedServer();
let baseUrl: string;
beforeAll(async () => {
  baseUrl = await server.listen();
});
afterAll(() => server.close());
beforeEach(() => {
  server.seen.length = 0;
  server.script();
});

const client = (extra: Partial<Parameters<typeof createSocialClient>[0]> = {}) =>
  createSocialClient({ baseUrl, apiId: 'aid_1', apiKey: 'ask_1', baseDelayMs: 10, ...extra });

describe('the typed client', () => {
  it('sends the key headers and a fresh Idempotency-Key per POST', async () => {
    const c = client();
    const first = await c.POST('/labels', { body: { name: 'a' } });
    await c.POST('/labels', { body: { name: 'b' } });
    expect(first.response.status).toBe(201);
    expect(first.data).toEqual({ id: 'l1', name: 'x', color: '#000000' });
    const [a, b] = server.seen;
    expect(a).toMatchObject({ method: 'POST', url: '/v2/labels', body: '{"name":"a"}' });
    expect(a!.headers).toMatchObject({ 'x-api-id': 'aid_1', 'x-api-key': 'ask_1' });
    expect(a!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(b!.headers['idempotency-key']).not.toBe(a!.headers['idempotency-key']);
  });

  it('uses a given Idempotency-Key, sets one on stage changes, and none on GET or PUT', async () => {
    const c = client();
    await c.POST('/labels', { body: { name: 'a' }, params: { header: { 'Idempotency-Key': 'mine-1' } } });
    await c.PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId: 'p1', op: 'schedule' } } });
    await c.GET('/labels/');
    await c.PUT('/posts/{postId}', { params: { path: { postId: 'p1' } }, body: { type: 'STATUS' } });
    expect(server.seen.map((s) => s.headers['idempotency-key'])).toEqual(['mine-1', expect.any(String), undefined, undefined]);
  });

  it('retries 429 and 503 after Retry-After with the same Idempotency-Key and body', async () => {
    server.script(json(429, error('RATE_LIMITED'), { 'retry-after': '1' }), json(503, error('SERVICE_UNAVAILABLE')));
    const res = await client().POST('/labels', { body: { name: 'again' } });
    expect(res.response.status).toBe(201);
    expect(server.seen).toHaveLength(3);
    expect(new Set(server.seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(server.seen.map((s) => s.body)).toEqual(Array(3).fill('{"name":"again"}'));
    // Retry-After: 1 was honoured (a second, not the 10 ms backoff).
    expect(server.seen[1]!.at - server.seen[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('retries a POST whose connection dropped, with the same key', async () => {
    server.script(dropConnection());
    const res = await client().POST('/labels', { body: { name: 'x' } });
    expect(res.response.status).toBe(201);
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1]!.headers['idempotency-key']).toBe(server.seen[0]!.headers['idempotency-key']);
  });

  it('does not resend a dropped POST without a key (it may have done the work)', async () => {
    server.script(dropConnection());
    await expect(client({ idempotencyKeys: false }).POST('/labels', { body: { name: 'x' } })).rejects.toThrow();
    expect(server.seen).toHaveLength(1);
  });

  it('retries 409 IDEMPOTENCY_KEY_IN_USE but not another 409', async () => {
    server.script(json(409, error('IDEMPOTENCY_KEY_IN_USE'), { 'retry-after': '0' }), json(409, error('INVALID_TRANSITION')));
    const res = await client().PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId: 'p1', op: 'approveTeam' } } });
    expect(res.response.status).toBe(409);
    expect(res.error).toMatchObject({ error: { code: 'INVALID_TRANSITION' } });
    expect(server.seen).toHaveLength(2);
  });

  it('gives up after the retries and returns the last answer', async () => {
    server.script(...Array(5).fill(json(503, error('SERVICE_UNAVAILABLE'), { 'retry-after': '0' })));
    const res = await client({ retries: 2 }).GET('/labels/');
    expect(res.response.status).toBe(503);
    expect(server.seen).toHaveLength(3);
  });

  it('caps a long Retry-After at maxDelayMs', async () => {
    server.script(json(429, error('RATE_LIMITED'), { 'retry-after': '3600' }));
    const res = await client({ maxDelayMs: 50 }).GET('/labels/');
    expect(res.response.status).toBe(201);
    expect(server.seen).toHaveLength(2);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs('Tue, 01 Jan 2030 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});
