import { type PublishInput, SandboxAdapter } from '@social/networks';
import { rejectionOf, type Sandbox, startSandbox } from './sandbox-harness';

describe('failure injection through the SandboxAdapter', () => {
  let sbx: Sandbox;
  let token: string;
  let n = 0;

  beforeAll(async () => {
    sbx = await startSandbox();
    token = await sbx.token('photoNet', 'pn-own-1');
  });
  afterEach(async () => {
    await sbx.http('DELETE', '/sandbox/admin/failures');
  });
  afterAll(() => sbx.stop());

  const inject = async (rule: Record<string, unknown>) => {
    const r = await sbx.http('POST', '/sandbox/admin/failures', rule);
    expect(r.status).toBe(201);
    return r.body;
  };
  const publishInput = (idempotencyKey = `f-${++n}`): PublishInput => ({
    net: 'photoNet',
    accountId: 'pn-own-1',
    accessToken: token,
    idempotencyKey,
    post: { type: 'MEDIA', caption: 'A photo', firstComment: null, media: [{ mimeType: 'image/jpeg', url: 'https://s/p.jpg' }], links: [], settings: { shareToFeed: true } },
  });
  const readDaily = (adapter = sbx.adapter) =>
    adapter.dailyMetrics({ net: 'photoNet', accountId: 'pn-own-1', accessToken: token, since: '2026-03-01', until: '2026-03-02', metrics: ['pn-daily-followers'] });
  const postsOfKey = async (key: string) =>
    (await sbx.http('GET', '/sandbox/admin/published?net=photoNet&accountId=pn-own-1')).body.items.filter((i: { idempotencyKey: string }) => i.idempotencyKey === key);

  it('answers rate limits with 429 and Retry-After: RATE_LIMITED, retryable, with the delay', async () => {
    await inject({ kind: 'rate_limit', net: 'photoNet', retryAfterSeconds: 7, count: 1 });
    const raw = await sbx.http('GET', '/sandbox/photoNet/accounts/pn-own-1/metrics/daily?since=2026-03-01&until=2026-03-01&metrics=pn-daily-followers');
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('7');
    expect(raw.body.error.code).toBe('RATE_LIMITED');

    await inject({ kind: 'rate_limit', net: 'photoNet', retryAfterSeconds: 7, count: 1 });
    const err = await rejectionOf(sbx.adapter.publish(publishInput()));
    expect(err).toMatchObject({ kind: 'RATE_LIMITED', retryable: true, retryAfterMs: 7000 });
    await expect(readDaily()).resolves.toMatchObject({ days: [{ date: '2026-03-01' }, { date: '2026-03-02' }] });
  });

  it.each([500, 503])('answers server errors (%i) as TRANSIENT and creates nothing', async (status) => {
    await inject({ kind: 'server_error', status, operation: 'publish', count: 1 });
    const input = publishInput();
    expect(await rejectionOf(sbx.adapter.publish(input))).toMatchObject({ kind: 'TRANSIENT', retryable: true, upstreamStatus: status });
    expect(await postsOfKey(input.idempotencyKey)).toEqual([]);
    // The retry with the same key goes through once the failure is gone.
    await expect(sbx.adapter.publish(input)).resolves.toMatchObject({ replayed: false });
  });

  it('answers a revoked token with 401 and a clear body: AUTH_REVOKED, not retryable', async () => {
    await inject({ kind: 'revoked_token', accountId: 'pn-own-1', count: 2 });
    const raw = await sbx.http('GET', '/sandbox/photoNet/accounts/pn-own-1/metrics/daily?since=2026-03-01&until=2026-03-01&metrics=pn-daily-followers', undefined, { authorization: `Bearer ${token}` });
    expect(raw.status).toBe(401);
    expect(raw.body.error).toMatchObject({ code: 'TOKEN_REVOKED', message: expect.stringContaining('reconnect the profile') });
    expect(await rejectionOf(readDaily())).toMatchObject({ kind: 'AUTH_REVOKED', retryable: false });
  });

  it('rejects content with 422: REJECTED, and nothing is published', async () => {
    await inject({ kind: 'reject_content', net: 'photoNet', count: 1 });
    const input = publishInput();
    expect(await rejectionOf(sbx.adapter.publish(input))).toMatchObject({ kind: 'REJECTED', retryable: false, upstreamStatus: 422 });
    expect(await postsOfKey(input.idempotencyKey)).toEqual([]);
    // A content rejection only applies to publishing.
    await inject({ kind: 'reject_content' });
    await expect(readDaily()).resolves.toBeDefined();
  });

  it('holds answers back with a slow rule: a read past the client timeout is TRANSIENT', async () => {
    const impatient = new SandboxAdapter({ baseUrl: sbx.url, timeoutMs: 300 });
    try {
      await inject({ kind: 'slow', operation: 'dailyMetrics', latencyMs: 1500, count: 1 });
      expect(await rejectionOf(readDaily(impatient))).toMatchObject({ kind: 'TRANSIENT', operation: 'dailyMetrics' });
      await inject({ kind: 'slow', operation: 'dailyMetrics', latencyMs: 100, count: 1 });
      await expect(readDaily(impatient)).resolves.toBeDefined();
    } finally {
      await impatient.close();
    }
  });

  it('simulates an unknown outcome: the publish happens, the answer comes too late, lookup reconciles', async () => {
    const impatient = new SandboxAdapter({ baseUrl: sbx.url, timeoutMs: 300 });
    try {
      await inject({ kind: 'slow', operation: 'publish', latencyMs: 1500, count: 1 });
      const input = publishInput();
      const err = await rejectionOf(impatient.publish(input));
      expect(err).toMatchObject({ kind: 'UNKNOWN_OUTCOME', retryable: true });

      // Like a real network, the post may still be in the works when the client gives up: ask a few times.
      let found = null;
      for (let i = 0; i < 20 && !found; i++) {
        found = await sbx.adapter.lookupPublished({ net: 'photoNet', accountId: 'pn-own-1', accessToken: token, idempotencyKey: input.idempotencyKey });
        if (!found) await new Promise((r) => setTimeout(r, 100));
      }
      expect(found).toEqual({ networkPostId: expect.any(String), publishedAt: expect.any(String) });
      const again = await sbx.adapter.publish(input);
      expect(again).toEqual({ ...found, replayed: true });
      const posts = await postsOfKey(input.idempotencyKey);
      expect(posts).toHaveLength(1);
      expect(posts[0].attempts).toBe(2);
    } finally {
      await impatient.close();
    }
  });

  it('scopes rules by network, account and operation, and lists and clears them', async () => {
    const rule = await inject({ kind: 'server_error', net: 'generalNet', operation: 'publish' });
    await expect(sbx.adapter.publish(publishInput())).resolves.toBeDefined();
    await inject({ kind: 'server_error', accountId: 'pn-own-2' });
    await expect(readDaily()).resolves.toBeDefined();
    await inject({ kind: 'server_error', rate: 0 });
    await expect(readDaily()).resolves.toBeDefined();

    const listed = (await sbx.http('GET', '/sandbox/admin/failures')).body.items;
    expect(listed).toHaveLength(3);
    expect(listed[0]).toMatchObject({ id: rule.id, kind: 'server_error', net: 'generalNet', hits: 0 });
    expect((await sbx.http('DELETE', `/sandbox/admin/failures/${rule.id}`)).body).toEqual({ removed: 1 });
    expect((await sbx.http('DELETE', '/sandbox/admin/failures')).body).toEqual({ removed: 2 });
  });

  it('validates failure rules', async () => {
    const r = await sbx.http('POST', '/sandbox/admin/failures', { kind: 'meteor', rate: 2 });
    expect(r.status).toBe(400);
    expect(r.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['/body/kind', '/body/rate']);
  });
});

describe('admin routes', () => {
  it('are not mounted when SANDBOX_ADMIN=false', async () => {
    const sbx = await startSandbox({ SANDBOX_ADMIN: 'false' });
    try {
      for (const [method, path] of [['POST', '/sandbox/admin/failures'], ['GET', '/sandbox/admin/published'], ['POST', '/sandbox/admin/latency']] as const) {
        const r = await sbx.http(method, path, method === 'POST' ? { kind: 'slow' } : undefined);
        expect(r.status).toBe(404);
      }
      // The network-facing routes still work.
      expect((await sbx.http('GET', '/sandbox/generalNet/accounts?kind=own')).status).toBe(200);
    } finally {
      await sbx.stop();
    }
  });
});
