import type { AddressInfo } from 'node:net';
import { Router } from 'express';
import { AppError } from '@social/errors';
import { signTestToken, testVerifier } from '@social/testkit';
import { setLogLevel } from '@social/logger';
import { createServiceApp } from './create-app';
import { listen, type RunningHttpServer } from './http-server';

setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

describe('GET /metrics of a service', () => {
  let server: RunningHttpServer;
  let base: string;
  const token = signTestToken('gateway', 'things', 'ws-1');

  beforeAll(async () => {
    const things = Router();
    things.get('/things/:thingId', (req, res) => {
      if (req.params['thingId'] === 'missing') throw new AppError('THING_NOT_FOUND', 404, 'no such thing');
      res.json({ id: req.params['thingId'] });
    });
    const api = Router();
    api.use('/', things);
    const app = createServiceApp({ api: { router: api, verifier: testVerifier('things') } });
    server = await listen(app, 0, '127.0.0.1');
    base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  });

  afterAll(() => server.close(100));

  const get = (path: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const scrape = async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };
  const count = (body: string, labels: string) =>
    Number(new RegExp(`^http_request_duration_seconds_count\\{${labels}\\} (\\d+)$`, 'm').exec(body)?.[1] ?? 0);

  it('answers without an internal token and includes the default Node metrics', async () => {
    const body = await scrape();

    expect(body).toContain('# TYPE http_request_duration_seconds histogram');
    expect(body).toContain('nodejs_heap_size_used_bytes');
  });

  it('labels requests by the route pattern, not the raw path, after they are served', async () => {
    await get('/v2/things/a1');
    await get('/v2/things/b2');

    const body = await scrape();
    expect(count(body, 'method="GET",route="/v2/things/:thingId",status="200"')).toBe(2);
    expect(body).not.toContain('route="/v2/things/a1"');
    expect(body).toMatch(/http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v2\/things\/:thingId",status="200"\}/);
  });

  it('keeps the pattern for a route that failed with an error, and its status', async () => {
    await get('/v2/things/missing');

    expect(count(await scrape(), 'method="GET",route="/v2/things/:thingId",status="404"')).toBe(1);
  });

  it('counts requests no route matched under one label, so unknown paths cannot add series', async () => {
    await get('/v2/nothing/here/1');
    await get('/v2/nothing/here/2');

    expect(count(await scrape(), 'method="GET",route="unmatched",status="404"')).toBe(2);
  });

  it('does not measure probes or scrapes', async () => {
    await fetch(`${base}/healthz`);

    const body = await scrape();
    expect(body).not.toContain('route="/healthz"');
    expect(body).not.toContain('route="/metrics"');
  });
});
