import { TestSystem } from '@social/testkit';
import { apiClient } from './support/api';

// The whole system as separate processes, through the gateway, with keys made by the admin CLI.
let system: TestSystem;
let gw: string;

const PLANS = JSON.stringify({ free: { competitors: 5 }, tiny: { competitors: 1, requestsPerWindow: 5 } });

beforeAll(async () => {
  system = await TestSystem.start({ PLANS });
  gw = `${system.gatewayUrl}/v2`;
});

afterAll(async () => {
  await system?.destroy();
});

interface Creds {
  workspaceId: string;
  apiId: string;
  apiKey: string;
}
const headers = (c: Creds, extra: Record<string, string> = {}) => ({ 'X-API-ID': c.apiId, 'X-API-KEY': c.apiKey, ...extra });
const workspace = (plan = 'free'): Promise<Creds> => system.admin(['workspace', 'create', '--name', 'E2E', '--plan', plan, '--json']);
/** The typed client; `retries: 0` where a test asserts a 429 or a 503, so the answer checked is the first. */
const api = (c: Creds, opts: { retries?: number } = {}) => apiClient(system, c, opts);
const createLabel = (c: Creds, name: string) => api(c).POST('/labels', { body: { name } });
const listLabels = (c: Creds, opts: { retries?: number } = {}) => api(c, opts).GET('/labels/');

describe('credentials', () => {
  it('issues a key pair that works through the gateway, shown once and stored hashed', async () => {
    const c = await workspace();
    expect(c).toEqual({
      workspaceId: expect.stringMatching(/^ws_/),
      apiId: expect.stringMatching(/^aid_/),
      apiKey: expect.stringMatching(/^ask_/),
    });
    expect((await listLabels(c)).response.status).toBe(200);
    const list = await system.admin(['workspace', 'list', '--json']);
    expect(JSON.stringify(list)).not.toContain(c.apiKey);
    expect(list).toContainEqual(expect.objectContaining({ id: c.workspaceId, activeKeys: 1 }));
  });

  it('answers missing headers, an unknown id and a wrong key with identical 401 bodies', async () => {
    const c = await workspace();
    const cases: Record<string, string>[] = [
      {},
      { 'X-API-ID': 'aid_nope', 'X-API-KEY': c.apiKey },
      { 'X-API-ID': c.apiId, 'X-API-KEY': 'ask_wrong' },
    ];
    // Raw: missing and forged key headers are what this checks.
    const bodies = await Promise.all(
      cases.map(async (h) => {
        const res = await fetch(`${gw}/labels/`, { headers: h });
        expect(res.status).toBe(401);
        const { error } = await res.json();
        return { ...error, requestId: undefined };
      }),
    );
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });

  it('stops a revoked key at once and keeps the workspace reachable with another key', async () => {
    const c = await workspace();
    expect((await listLabels(c)).response.status).toBe(200);
    const second: Creds = await system.admin(['key', 'issue', '--workspace', c.workspaceId, '--json']);
    await system.admin(['key', 'revoke', '--api-id', c.apiId]);
    expect((await listLabels(c)).response.status).toBe(401);
    expect((await listLabels(second)).response.status).toBe(200);
  });

  it('fails the admin command line with a clear message on bad input', async () => {
    await expect(system.admin(['workspace', 'create', '--name', 'x', '--plan', 'gold'])).rejects.toThrow(/Unknown plan "gold"/);
    await expect(system.admin(['key', 'revoke', '--api-id', 'aid_missing'])).rejects.toThrow(/No active key/);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After and RateLimit headers once the plan quota is spent', async () => {
    const c = await workspace('tiny');
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof listLabels>> | undefined;
    for (let i = 0; i < 6; i++) {
      last = await listLabels(c, { retries: 0 });
      statuses.push(last.response.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const { headers: got } = last!.response;
    expect(Number(got.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(got.get('ratelimit-policy')).toBe('5;w=60');
    expect(got.get('ratelimit')).toMatch(/^limit=5, remaining=0, reset=\d+$/);
    expect(last!.error!.error.code).toBe('RATE_LIMITED');
  });
});

describe('labels through the gateway', () => {
  it('creates, lists and pages labels', async () => {
    const c = await workspace();
    for (const name of ['a', 'b', 'c']) expect((await createLabel(c, name)).response.status).toBe(201);
    const page = (await api(c).GET('/labels/', { params: { query: { skip: 1, take: 1 } } })).data;
    expect(page).toMatchObject({ total: 3, skip: 1, take: 1, items: [{ name: 'b', color: expect.stringMatching(/^#[0-9A-F]{6}$/) }] });
  });

  it('rejects bad bodies with 400 details and changes nothing', async () => {
    const c = await workspace();
    const res = await createLabel(c, 'x'.repeat(51));
    expect(res.response.status).toBe(400);
    expect(res.error!.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: '/name' }] });
    expect((await listLabels(c)).data!.total).toBe(0);
    // Raw: a body of another content type, which the typed client does not send.
    const form = await fetch(`${gw}/labels`, { method: 'POST', headers: headers(c, { 'content-type': 'text/plain' }), body: 'x' });
    expect(form.status).toBe(415);
  });

  it('keeps each workspace to its own labels', async () => {
    const a = await workspace();
    const b = await workspace();
    await createLabel(a, 'only-a');
    const seenByB = (await listLabels(b)).data;
    expect(seenByB).toEqual({ items: [], total: 0, skip: 0, take: 20 });
  });

  it('logs the request id in the gateway and in the posts service', async () => {
    const c = await workspace();
    const res = await api(c).GET('/labels/', { headers: { 'X-Request-Id': 'e2e-trace-1' } });
    expect(res.response.headers.get('x-request-id')).toBe('e2e-trace-1');
    await new Promise((r) => setTimeout(r, 200));
    for (const service of ['gateway', 'posts']) {
      const lines = system.logOf(service).filter((l) => l.includes('e2e-trace-1'));
      expect([service, lines.length > 0]).toEqual([service, true]);
      expect(JSON.parse(lines[0]!)).toMatchObject({ requestId: 'e2e-trace-1', workspaceId: c.workspaceId, service });
    }
  });

  it('answers an unknown route with 404 in the error shape', async () => {
    const c = await workspace();
    // Raw: a path the document does not have, so the typed client cannot name it.
    const res = await fetch(`${gw}/no-such-thing`, { headers: headers(c) });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('NOT_FOUND');
  });
});

describe('the contract', () => {
  it('serves the OpenAPI document and a readable page without credentials', async () => {
    // Raw: the document and the docs page are served without keys, and the page is HTML.
    const doc = await fetch(`${gw}/openapi.json`);
    expect(doc.status).toBe(200);
    const body = await doc.json();
    expect(body.openapi).toBe('3.1.0');
    for (const path of ['/labels', '/posts/{postId}/stage/{op}', '/media/from-url', '/competitor', '/profile/{profileId}/insights']) {
      expect(Object.keys(body.paths)).toContain(path);
    }
    const page = await fetch(`${gw}/docs`);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    // Rendered by Swagger UI in the browser (gateway/test/docs-page.test.ts checks it in Chromium).
    expect(html).toContain('/v2/docs/assets/swagger-ui-bundle.js');
    const bundle = await fetch(`${gw}/docs/assets/swagger-ui-bundle.js`);
    expect([bundle.status, bundle.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
  });
});

describe('service lifecycle', () => {
  it('every service serves health checks', async () => {
    // Raw: each service's own /healthz, outside the API.
    for (const name of ['posts', 'media', 'competitors', 'insights', 'publisher', 'gateway']) {
      const res = await fetch(`${system.url(name)}/healthz`);
      expect([name, res.status]).toEqual([name, 200]);
    }
  });

  it('answers 503 within two seconds while the posts service is stopped, and recovers', async () => {
    const c = await workspace();
    expect(await system.stopProcess('posts', 'SIGTERM')).toBe(0);
    const started = Date.now();
    const res = await listLabels(c, { retries: 0 });
    expect(res.response.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.error!.error.code).toBe('SERVICE_UNAVAILABLE');
    await system.startProcess('posts');
    expect((await listLabels(c)).response.status).toBe(200);
  });

  it('each service exits 0 on SIGTERM', async () => {
    for (const name of ['publisher', 'insights', 'competitors', 'media']) {
      expect([name, await system.stopProcess(name, 'SIGTERM')]).toEqual([name, 0]);
    }
  });
});
