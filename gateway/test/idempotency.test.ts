import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dropDatabases, testEnv } from '@social/testkit';
import { connectMongo, closeMongo, type Connection } from '@social/mongo';
import { loadGatewayConfig, gatewayDbName } from '../src/config';
import { GatewayService } from '../src/gateway-service';
import { gatewayModels } from '../src/data/workspace.model';
import { WorkspaceRepository } from '../src/data/workspace.repository';

/**
 * A stand-in for the posts service that counts the work it did per body; it can be told to fail the
 * next requests (`failNext`) or to hold a request (`"hold": true`) until the test lets it go.
 */
const done: string[] = [];
let failNext = 0;
let arrived: () => void = () => undefined;
let letGo: () => void = () => undefined;
const upstream = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const input = body ? JSON.parse(body) : {};
    const held = input.hold ? new Promise<void>((r) => ((letGo = r), arrived())) : Promise.resolve();
    void held.then(() => {
      if (failNext > 0) {
        failNext--;
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'down', details: [], requestId: null } }));
        return;
      }
      if (input.name === '') {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'VALIDATION_FAILED', message: 'no', details: [], requestId: null } }));
        return;
      }
      done.push(body);
      res.writeHead(201, { 'content-type': 'application/json; charset=utf-8', location: `/v2/labels/${done.length}` });
      res.end(JSON.stringify({ id: String(done.length), method: req.method, path: req.url, body }));
    });
  });
});

let env: Record<string, string>;
let gateway: GatewayService;
let base: string;
let mongo: Connection;
let repo: WorkspaceRepository;

beforeAll(async () => {
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  env = testEnv({ GATEWAY_PORT: '0', POSTS_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` });
  const cfg = loadGatewayConfig(env);
  gateway = await GatewayService.create(cfg);
  base = `http://127.0.0.1:${gateway.port}/v2`;
  mongo = await connectMongo({ url: cfg.mongoUrl, dbName: gatewayDbName(cfg) });
  repo = new WorkspaceRepository(gatewayModels(mongo));
});

afterAll(async () => {
  await gateway.destroy();
  upstream.close();
  await closeMongo(mongo);
  await dropDatabases(env['MONGO_URL']!, env['MONGO_DB_PREFIX']!);
});

async function workspace() {
  const ws = await repo.createWorkspace('Idem', 'free');
  const k = await repo.issueKey(ws.id);
  return { 'X-API-ID': k.apiId, 'X-API-KEY': k.apiKey };
}

const uniqueKey = () => `k-${Math.random().toString(36).slice(2)}`;

async function send(creds: Record<string, string>, method: string, path: string, body: unknown, key?: string) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...creds, 'content-type': 'application/json', ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const worked = (marker: string) => done.filter((b) => b.includes(marker)).length;

describe('idempotency keys', () => {
  it('returns the first response to a retry with the same key and body, without doing the work again', async () => {
    const c = await workspace();
    const key = uniqueKey();
    const first = await send(c, 'POST', '/labels', { name: key }, key);
    const again = await send(c, 'POST', '/labels', { name: key }, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(worked(key)).toBe(1);
    // The body reached the service as sent, byte for byte.
    expect(first.body.body).toBe(JSON.stringify({ name: key }));
  });

  it('does the work each time without a key', async () => {
    const c = await workspace();
    const marker = uniqueKey();
    await send(c, 'POST', '/labels', { name: marker });
    await send(c, 'POST', '/labels', { name: marker });
    expect(worked(marker)).toBe(2);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body or another path', async () => {
    const c = await workspace();
    const key = uniqueKey();
    expect((await send(c, 'POST', '/labels', { name: key }, key)).status).toBe(201);
    const other = await send(c, 'POST', '/labels', { name: `${key}-other` }, key);
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', requestId: other.headers.get('x-request-id') });
    expect((await send(c, 'POST', '/posts', { name: key }, key)).body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(worked(`${key}-other`)).toBe(0);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE while the first request with the key is still running', async () => {
    const c = await workspace();
    const key = uniqueKey();
    const body = { name: key, hold: true };
    const atService = new Promise<void>((r) => (arrived = r));
    const first = send(c, 'POST', '/labels', body, key);
    await atService;
    const second = await send(c, 'POST', '/labels', body, key);
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(second.headers.get('retry-after')).toBe('1');
    letGo();
    expect((await first).status).toBe(201);
    expect((await send(c, 'POST', '/labels', body, key)).body).toEqual((await first).body);
    expect(worked(key)).toBe(1);
  });

  it('keeps keys per workspace: the same key in another workspace does its own work', async () => {
    const [a, b] = [await workspace(), await workspace()];
    const key = uniqueKey();
    const fromA = await send(a, 'POST', '/labels', { name: key }, key);
    const fromB = await send(b, 'POST', '/labels', { name: key }, key);
    expect(fromB.status).toBe(201);
    expect(fromB.body.id).not.toBe(fromA.body.id);
    expect(worked(key)).toBe(2);
  });

  it('releases the key after a 5xx, so a retry does the work', async () => {
    const c = await workspace();
    const key = uniqueKey();
    failNext = 1;
    const failed = await send(c, 'POST', '/labels', { name: key }, key);
    expect(failed.status).toBe(503);
    const retried = await send(c, 'POST', '/labels', { name: key }, key);
    expect(retried.status).toBe(201);
    expect(worked(key)).toBe(1);
  });

  it('keeps a final 4xx: the retry gets the same 400 without asking the service', async () => {
    const c = await workspace();
    const key = uniqueKey();
    const first = await send(c, 'POST', '/labels', { name: '' }, key);
    expect(first.status).toBe(400);
    const again = await send(c, 'POST', '/labels', { name: '' }, key);
    expect(again).toMatchObject({ status: 400, body: first.body });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('applies to stage changes (PATCH) and ignores the header on other methods', async () => {
    const c = await workspace();
    const key = uniqueKey();
    const first = await send(c, 'PATCH', '/posts/p1/stage/schedule', { comment: key }, key);
    const again = await send(c, 'PATCH', '/posts/p1/stage/schedule', { comment: key }, key);
    expect(again.body).toEqual(first.body);
    expect(worked(key)).toBe(1);
    const other = uniqueKey();
    await send(c, 'PUT', '/posts/p1', { comment: other }, other);
    await send(c, 'PUT', '/posts/p1', { comment: other }, other);
    expect(worked(other)).toBe(2);
  });

  it.each([['x'.repeat(256)], ['has space'], ['a,b'], ['ünïcode']])('refuses the key %j with 400 VALIDATION_FAILED', async (key) => {
    const c = await workspace();
    const res = await fetch(`${base}/labels`, {
      method: 'POST',
      headers: {
        ...c,
        'content-type': 'application/json',
        'Idempotency-Key': encodeURI(key) === key ? key : Buffer.from(key).toString('latin1'),
      },
      body: JSON.stringify({ name: 'x' }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: '/headers/idempotency-key' }] });
  });
});
