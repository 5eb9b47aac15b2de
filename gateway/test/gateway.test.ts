import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dropDatabases, eventually, freePort, testEnv, testVerifier } from '@social/testkit';
import { connectMongo, closeMongo, type Connection } from '@social/mongo';
import Redis from 'ioredis';
import { loadGatewayConfig, gatewayDbName } from '../src/config';
import { GatewayService } from '../src/gateway-service';
import { gatewayModels } from '../src/data/workspace.model';
import { WorkspaceRepository } from '../src/data/workspace.repository';
import { KeyCache } from '../src/auth/key-cache';

/** An upstream that records what the gateway forwarded, standing in for the posts service. */
function echoUpstream() {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, method: req.method, body }));
    });
  });
  return { server, seen };
}

const upstream = echoUpstream();
let env: Record<string, string>;
let gateway: GatewayService;
let base: string;
let mongo: Connection;
let redis: Redis;
let repo: WorkspaceRepository;
let keyCache: KeyCache;

beforeAll(async () => {
  await new Promise<void>((r) => upstream.server.listen(0, '127.0.0.1', r));
  const upstreamUrl = `http://127.0.0.1:${(upstream.server.address() as AddressInfo).port}`;
  const closedPort = await freePort();
  env = testEnv({
    GATEWAY_PORT: '0',
    POSTS_URL: upstreamUrl,
    MEDIA_URL: `http://127.0.0.1:${closedPort}`,
    PLANS: JSON.stringify({ free: { competitors: 5 }, tiny: { competitors: 1, requestsPerWindow: 3 } }),
    BODY_LIMIT_BYTES: '2048',
  });
  const cfg = loadGatewayConfig(env);
  gateway = await GatewayService.create(cfg);
  base = `http://127.0.0.1:${gateway.port}`;
  mongo = await connectMongo({ url: cfg.mongoUrl, dbName: gatewayDbName(cfg) });
  redis = new Redis(cfg.redisUrl);
  repo = new WorkspaceRepository(gatewayModels(mongo));
  keyCache = new KeyCache(redis, { ttlSeconds: 60 });
});

afterAll(async () => {
  await gateway.destroy();
  upstream.server.close();
  redis.disconnect();
  await closeMongo(mongo);
  await dropDatabases(env['MONGO_URL']!, env['MONGO_DB_PREFIX']!);
});

async function newKey(plan = 'free') {
  const ws = await repo.createWorkspace('Test', plan);
  return repo.issueKey(ws.id);
}

const creds = (k: { apiId: string; apiKey: string }) => ({ 'X-API-ID': k.apiId, 'X-API-KEY': k.apiKey });

describe('gateway authentication', () => {
  it('answers missing headers, an unknown id and a wrong key with the same 401 body', async () => {
    const key = await newKey();
    const attempts: Record<string, string>[] = [
      {},
      { 'X-API-ID': key.apiId },
      { 'X-API-ID': 'aid_unknown', 'X-API-KEY': key.apiKey },
      { 'X-API-ID': key.apiId, 'X-API-KEY': `${key.apiKey}x` },
      { 'X-API-ID': 'x'.repeat(500), 'X-API-KEY': 'y' },
    ];
    const bodies = [];
    for (const headers of attempts) {
      const res = await fetch(`${base}/v2/labels/`, { headers });
      expect(res.status).toBe(401);
      const body = await res.json();
      expect(body.error.requestId).toBe(res.headers.get('x-request-id'));
      bodies.push({ ...body.error, requestId: undefined });
    }
    for (const b of bodies) expect(b).toEqual(bodies[0]);
    expect(bodies[0]).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('proxies with credentials stripped and an internal token for the target service', async () => {
    const key = await newKey();
    const res = await fetch(`${base}/v2/labels/?take=5`, { headers: { ...creds(key), 'X-Request-Id': 'req-abc' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('req-abc');
    expect(await res.json()).toMatchObject({ path: '/v2/labels/?take=5', method: 'GET' });
    const forwarded = upstream.seen.at(-1)!;
    expect(forwarded['x-api-key']).toBeUndefined();
    expect(forwarded['x-api-id']).toBeUndefined();
    expect(forwarded['x-request-id']).toBe('req-abc');
    const token = String(forwarded.authorization).replace('Bearer ', '');
    const ws = (await repo.findKey(key.apiId))!.workspaceId;
    expect(await testVerifier('posts').verify(token, ['gateway'])).toMatchObject({
      workspaceId: ws,
      requestId: 'req-abc',
      plan: 'free',
      issuer: 'gateway',
    });
    // Signed with the gateway's Ed25519 key: nothing a service holds could have made it.
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toMatchObject({
      alg: 'EdDSA',
      kid: expect.stringMatching(/^gateway-/),
    });
  });

  it('refuses a revoked key at once, even when it was cached in Redis and in process', async () => {
    const key = await newKey();
    expect((await fetch(`${base}/v2/labels/`, { headers: creds(key) })).status).toBe(200);
    expect((await fetch(`${base}/v2/labels/`, { headers: creds(key) })).status).toBe(200);
    await repo.revokeKey(key.apiId);
    await keyCache.invalidate(key.apiId);
    // The gateway hears of it on a Redis channel: "at once" is within milliseconds, not before the
    // next request is parsed (its own event loop decides which socket it reads first).
    const refused = await eventually(async () => (await fetch(`${base}/v2/labels/`, { headers: creds(key) })).status === 401, 1000, 10);
    expect(refused).toBe(true);
  });
});

describe('gateway limits and routing', () => {
  it('rate limits per workspace with 429, Retry-After and RateLimit headers', async () => {
    const key = await newKey('tiny');
    const statuses = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await fetch(`${base}/v2/labels/`, { headers: creds(key) });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('ratelimit-policy')).toBe('3;w=60');
    expect(last!.headers.get('ratelimit')).toMatch(/^limit=3, remaining=0, reset=\d+$/);
    expect((await last!.json()).error.code).toBe('RATE_LIMITED');
    // Another workspace on the same plan has its own budget.
    expect((await fetch(`${base}/v2/labels/`, { headers: creds(await newKey('tiny')) })).status).toBe(200);
  });

  it('answers an unknown route with 404 in the error shape', async () => {
    const res = await fetch(`${base}/v2/nothing-here`, { headers: creds(await newKey()) });
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatchObject({ code: 'NOT_FOUND', requestId: expect.any(String) });
    const outside = await fetch(`${base}/elsewhere`);
    expect(outside.status).toBe(404);
  });

  it('answers 503 quickly when a service is down', async () => {
    const started = Date.now();
    const res = await fetch(`${base}/v2/media/abc`, { headers: creds(await newKey()) });
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await res.json()).error.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('rejects non-JSON bodies with 415 and oversized bodies with 413', async () => {
    const headers = creds(await newKey());
    const form = await fetch(`${base}/v2/labels`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/plain' },
      body: 'name=x',
    });
    expect(form.status).toBe(415);
    const big = await fetch(`${base}/v2/labels`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(5000) }),
    });
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('serves health and readiness', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${base}/readyz`)).json()).toMatchObject({ status: 'ready', checks: { mongo: true, redis: true } });
  });

  it('serves /metrics without an API key, with proxied requests labelled by route family, not by id', async () => {
    const key = await newKey();
    await fetch(`${base}/v2/posts/p-123`, { headers: creds(key) });
    await fetch(`${base}/v2/posts/p-456`, { headers: creds(key) });

    const res = await fetch(`${base}/metrics`);

    expect(res.status).toBe(200);
    const body = await res.text();
    const count = /^http_request_duration_seconds_count\{method="GET",route="\/v2\/posts\/\*",status="200"\} (\d+)$/m.exec(body);
    expect(Number(count?.[1])).toBeGreaterThanOrEqual(2);
    expect(body).not.toContain('p-123');
  });
});
