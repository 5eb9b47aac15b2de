import { contentFingerprint, type PublishInput, SandboxAdapter } from '@social/networks';
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
    post: {
      type: 'MEDIA',
      caption: `A photo (${idempotencyKey})`,
      firstComment: null,
      media: [{ mimeType: 'image/jpeg', url: 'https://s/p.jpg' }],
      links: [],
      settings: { shareToFeed: true },
    },
  });
  const readDaily = (adapter = sbx.adapter) =>
    adapter.dailyMetrics({
      net: 'photoNet',
      accountId: 'pn-own-1',
      accessToken: token,
      since: '2026-03-01',
      until: '2026-03-02',
      metrics: ['pn-daily-followers'],
    });
  const postsOfKey = async (key: string) =>
    (await sbx.http('GET', '/sandbox/admin/published?net=photoNet&accountId=pn-own-1')).body.items.filter(
      (i: { clientKey: string }) => i.clientKey === key,
    );
  const recent = async (since: string) =>
    (await sbx.adapter.recentPosts({ net: 'photoNet', accountId: 'pn-own-1', accessToken: token, since, limit: 100 })).items;

  it('answers rate limits with 429 and Retry-After: RATE_LIMITED, retryable, with the delay', async () => {
    await inject({ kind: 'rate_limit', net: 'photoNet', retryAfterSeconds: 7, count: 1 });
    const raw = await sbx.http(
      'GET',
      '/sandbox/photoNet/accounts/pn-own-1/metrics/daily?since=2026-03-01&until=2026-03-01&metrics=pn-daily-followers',
    );
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('7');
    expect(raw.body.error.code).toBe('RATE_LIMITED');

    await inject({ kind: 'rate_limit', net: 'photoNet', retryAfterSeconds: 7, count: 1 });
    const err = await rejectionOf(sbx.adapter.publish(publishInput()));
    expect(err).toMatchObject({ kind: 'RATE_LIMITED', retryable: true, retryAfterMs: 7000 });
    await expect(readDaily()).resolves.toMatchObject({ days: [{ date: '2026-03-01' }, { date: '2026-03-02' }] });
  });

  it('answers 503 before any work: TRANSIENT, nothing created', async () => {
    await inject({ kind: 'server_error', status: 503, operation: 'publish', count: 1 });
    const input = publishInput();
    expect(await rejectionOf(sbx.adapter.publish(input))).toMatchObject({
      kind: 'TRANSIENT',
      retryable: true,
      upstreamStatus: 503,
      retryAfterMs: 1000,
    });
    expect(await postsOfKey(input.idempotencyKey)).toEqual([]);
    await expect(sbx.adapter.publish(input)).resolves.toMatchObject({ replayed: false });
    expect(await postsOfKey(input.idempotencyKey)).toHaveLength(1);
  });

  it.each([500, 502])('answers %i before the work: nothing created, but the client cannot know (UNKNOWN_OUTCOME)', async (status) => {
    await inject({ kind: 'server_error', status, operation: 'publish', count: 1 });
    const input = publishInput();
    expect(await rejectionOf(sbx.adapter.publish(input))).toMatchObject({ kind: 'UNKNOWN_OUTCOME', upstreamStatus: status });
    expect(await postsOfKey(input.idempotencyKey)).toEqual([]);
  });

  it.each([500, 502])('stores the post and then answers %i with phase after: UNKNOWN_OUTCOME, found in the listing', async (status) => {
    const rule = await inject({ kind: 'server_error', status, phase: 'after', operation: 'publish', count: 1 });
    expect(rule).toMatchObject({ phase: 'after', status });
    const since = new Date(Date.now() - 1000).toISOString();
    const input = publishInput();
    const err = await rejectionOf(sbx.adapter.publish(input));
    expect(err).toMatchObject({ kind: 'UNKNOWN_OUTCOME', retryable: true, upstreamStatus: status });
    const stored = await postsOfKey(input.idempotencyKey);
    expect(stored).toHaveLength(1);
    const listed = (await recent(since)).filter((p) => p.fingerprint === contentFingerprint(input.post));
    expect(listed.map((p) => p.networkPostId)).toEqual([stored[0].networkPostId]);
  });

  it('answers a revoked token with 401 and a clear body: AUTH_REVOKED, not retryable', async () => {
    await inject({ kind: 'revoked_token', accountId: 'pn-own-1', count: 2 });
    const raw = await sbx.http(
      'GET',
      '/sandbox/photoNet/accounts/pn-own-1/metrics/daily?since=2026-03-01&until=2026-03-01&metrics=pn-daily-followers',
      undefined,
      { authorization: `Bearer ${token}` },
    );
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

  it('simulates an unknown outcome: the publish happens, the answer comes too late, the listing reconciles', async () => {
    const impatient = new SandboxAdapter({ baseUrl: sbx.url, timeoutMs: 300 });
    try {
      await inject({ kind: 'slow', operation: 'publish', latencyMs: 1500, count: 1 });
      const since = new Date(Date.now() - 1000).toISOString();
      const input = publishInput();
      const err = await rejectionOf(impatient.publish(input));
      expect(err).toMatchObject({ kind: 'UNKNOWN_OUTCOME', retryable: true });

      // Like a real network, the post may still be in the works when the client gives up: ask a few times.
      let found;
      for (let i = 0; i < 20 && !found; i++) {
        found = (await recent(since)).find((p) => p.fingerprint === contentFingerprint(input.post));
        if (!found) await new Promise((r) => setTimeout(r, 100));
      }
      expect(found).toEqual({
        networkPostId: expect.any(String),
        publishedAt: expect.any(String),
        fingerprint: contentFingerprint(input.post),
      });

      // photoNet keeps no keys: publishing again instead of reconciling makes a second post.
      const again = await sbx.adapter.publish(input);
      expect(again).toMatchObject({ replayed: false });
      expect(again.networkPostId).not.toBe(found!.networkPostId);
      const admin = (await sbx.http('GET', `/sandbox/admin/published?clientKeyPrefix=${input.idempotencyKey}`)).body;
      expect(admin.duplicateClientKeys).toEqual([{ net: 'photoNet', accountId: 'pn-own-1', clientKey: input.idempotencyKey, created: 2 }]);
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
    const r = await sbx.http('POST', '/sandbox/admin/failures', { kind: 'meteor', rate: 2, phase: 'during' });
    expect(r.status).toBe(400);
    expect(r.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['/body/kind', '/body/phase', '/body/rate']);
    // Our model: 503 never acts, a slow rule always answers after the work, refusals come before it.
    const after503 = await sbx.http('POST', '/sandbox/admin/failures', { kind: 'server_error', status: 503, phase: 'after' });
    expect(after503.status).toBe(400);
    expect(after503.body.error.details).toEqual([{ path: '/body/status', message: expect.stringContaining('did not act') }]);
    expect((await sbx.http('POST', '/sandbox/admin/failures', { kind: 'slow', phase: 'before' })).status).toBe(400);
    expect((await sbx.http('POST', '/sandbox/admin/failures', { kind: 'rate_limit', phase: 'after' })).status).toBe(400);
    expect((await sbx.http('GET', '/sandbox/admin/failures')).body.items).toEqual([]);
  });
});

describe('admin routes', () => {
  it('are not mounted when SANDBOX_ADMIN=false', async () => {
    const sbx = await startSandbox({ SANDBOX_ADMIN: 'false' });
    try {
      for (const [method, path] of [
        ['POST', '/sandbox/admin/failures'],
        ['GET', '/sandbox/admin/published'],
        ['POST', '/sandbox/admin/latency'],
      ] as const) {
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

describe('the processing bound (SANDBOX_MAX_PROCESSING_MS)', () => {
  let sbx: Sandbox;
  let token: string;
  let n = 0;

  beforeAll(async () => {
    sbx = await startSandbox({ SANDBOX_MAX_PROCESSING_MS: '300' });
    token = await sbx.token('generalNet', 'gn-own-1');
  });
  afterEach(async () => {
    await sbx.http('DELETE', '/sandbox/admin/failures');
    await sbx.http('POST', '/sandbox/admin/latency', { publishMs: 0 });
  });
  afterAll(() => sbx.stop());

  const input = (): PublishInput => ({
    net: 'generalNet',
    accountId: 'gn-own-1',
    accessToken: token,
    idempotencyKey: `bound-${++n}`,
    post: { type: 'STATUS', caption: `Bounded ${n}`, firstComment: null, media: [], links: [], settings: null },
  });
  const count = async () => (await sbx.http('GET', '/sandbox/admin/published/count')).body.total as number;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('defaults to the network maxProcessingMs of the catalog', async () => {
    const plain = await startSandbox();
    try {
      expect(plain.service.ctx.maxProcessingMs('generalNet')).toBe(30_000);
      expect(sbx.service.ctx.maxProcessingMs('generalNet')).toBe(300);
    } finally {
      await plain.stop();
    }
  });

  it('abandons a publish whose processing would take longer: 504, nothing stored, ever', async () => {
    await sbx.http('POST', '/sandbox/admin/latency', { publishMs: 800 });
    const before = await count();
    const err = await rejectionOf(sbx.adapter.publish(input()));
    expect(err).toMatchObject({ kind: 'UNKNOWN_OUTCOME', upstreamStatus: 504, upstreamCode: 'PROCESSING_TIMEOUT' });
    await sleep(800); // past the time the work would have taken: still nothing
    expect(await count()).toBe(before);

    await sbx.http('POST', '/sandbox/admin/latency', { publishMs: 100 });
    await expect(sbx.adapter.publish(input())).resolves.toMatchObject({ replayed: false });
    expect(await count()).toBe(before + 1);
  });

  it.each(['before', 'after'])('counts the latency of a server_error rule (phase %s) held before the work', async (phase) => {
    await sbx.http('POST', '/sandbox/admin/failures', { kind: 'server_error', phase, latencyMs: 800, operation: 'publish', count: 1 });
    const before = await count();
    expect(await rejectionOf(sbx.adapter.publish(input()))).toMatchObject({ upstreamStatus: 504, upstreamCode: 'PROCESSING_TIMEOUT' });
    await sleep(800);
    expect(await count()).toBe(before);
  });

  it('does not bound a slow rule: the post is stored and the answer comes late', async () => {
    await sbx.http('POST', '/sandbox/admin/failures', { kind: 'slow', latencyMs: 800, operation: 'publish', count: 1 });
    const before = await count();
    await expect(sbx.adapter.publish(input())).resolves.toMatchObject({ replayed: false });
    expect(await count()).toBe(before + 1);
  });
});
