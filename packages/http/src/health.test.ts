import express from 'express';
import { setLogLevel } from '@social/logger';
import { healthRoutes, type ReadinessCheck } from './health';
import { listen, type RunningHttpServer } from './http-server';
import { serveDraining, type ServiceHttp } from './service-http';

setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

describe('healthRoutes', () => {
  let server: RunningHttpServer | undefined;

  afterEach(async () => {
    await server?.close(100);
    server = undefined;
  });

  async function serve(opts: Parameters<typeof healthRoutes>[0]): Promise<string> {
    const app = express();
    app.use(healthRoutes(opts));
    server = await listen(app, 0, '127.0.0.1');
    return `http://127.0.0.1:${server.port}`;
  }

  it('answers /healthz with ok, whatever the dependencies say', async () => {
    const base = await serve({ readiness: [{ name: 'db', check: () => false }], isDraining: () => true });
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('is ready with no checks at all', async () => {
    const base = await serve({});
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: {} });
  });

  it('names every check and answers 503 when one fails, throws or rejects', async () => {
    const checks: ReadinessCheck[] = [
      { name: 'ok', check: () => true },
      { name: 'async', check: async () => true },
      { name: 'down', check: () => false },
      {
        name: 'throws',
        check: () => {
          throw new Error('boom');
        },
      },
      { name: 'rejects', check: () => Promise.reject(new Error('boom')) },
    ];
    const base = await serve({ readiness: checks });
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      status: 'not ready',
      checks: { ok: true, async: true, down: false, throws: false, rejects: false },
    });
  });

  it('is not ready while draining, even with every check passing', async () => {
    const base = await serve({ readiness: [{ name: 'db', check: () => true }], isDraining: () => true });
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'not ready', checks: { db: true } });
  });

  it('serves the Prometheus text format on /metrics', async () => {
    const base = await serve({});
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  });
});

describe('serveDraining', () => {
  it('raises the draining flag the app was built with as soon as close() begins', async () => {
    let isDraining: (() => boolean) | undefined;
    const http: ServiceHttp = await serveDraining(
      (draining) => {
        isDraining = draining;
        const app = express();
        app.use(healthRoutes({ isDraining: draining }));
        return app;
      },
      0,
      '127.0.0.1',
    );
    expect((await fetch(`http://127.0.0.1:${http.port}/readyz`)).status).toBe(200);
    expect(isDraining?.()).toBe(false);
    const closing = http.close(100);
    expect(isDraining?.()).toBe(true);
    await closing;
  });
});
