import { Broker } from '@social/events';
import { createTestVhost, eventually, internalHeaders, sleep, testEnv, TestSystem, type TestVhost } from '@social/testkit';

// Publishing end to end: the whole system as processes in a RabbitMQ vhost of its own, posts made
// through the gateway, published on the network sandbox by the publisher worker.
let vhost: TestVhost;
let system: TestSystem;
let gw: string;

const PLANS = JSON.stringify({ free: { competitors: 5, requestsPerWindow: 100000000 } });

beforeAll(async () => {
  vhost = await createTestVhost(testEnv()['AMQP_URL']!);
  system = await TestSystem.start({
    PLANS,
    AMQP_URL: vhost.amqpUrl,
    SANDBOX_ADMIN: 'true',
    POSTS_DISPATCH_TICK_MS: '1000',
    POSTS_DISPATCH_LEASE_MS: '5000',
    POSTS_PUBLISH_WATCHDOG_MS: '120000',
    PUBLISHER_RETRY_BASE_MS: '200',
    PUBLISHER_RETRY_MAX_MS: '2000',
    PUBLISHER_MAX_ATTEMPTS: '10',
    SHUTDOWN_GRACE_MS: '3000',
  });
  gw = `${system.gatewayUrl}/v2`;
  // Reconnecting a profile asks insights for a backfill; this vhost has no insights queue unless
  // one is declared, and competitors refuses an unroutable event.
  const sink = await Broker.connect({
    url: vhost.amqpUrl,
    connectionName: 'e2e-sink',
    topology: {
      exchanges: [{ name: 'social.profiles', type: 'topic' }],
      queues: [{ name: 'e2e.collection-sink', bindings: [{ exchange: 'social.profiles', routingKey: 'insights.collection.requested' }] }],
    },
  });
  await sink.close();
}, 240000);

afterEach(() => {
  // On failure, what the publishing processes said last.
  const state = expect.getState() as { assertionCalls: number; currentTestName?: string; testPath?: string } & Record<string, unknown>;
  if (process.env['E2E_DUMP_LOGS'] && system) {
    for (const name of ['posts', 'publisher', 'competitors']) console.log(`--- ${name} (${state.currentTestName})\n${system.logOf(name).slice(-40).join('\n')}`);
  }
});

afterAll(async () => {
  await system?.destroy();
  await vhost?.drop();
}, 60000);

interface Creds {
  workspaceId: string;
  apiId: string;
  apiKey: string;
  profiles: { id: string; net: { code: string }; statusLevel: string }[];
}

const workspace = (): Promise<Creds> => system.admin(['workspace', 'create', '--name', 'E2E publishing', '--sandbox-profiles', '--json']);
const call = async (c: Creds, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${gw}${path}`, {
    method,
    headers: { 'X-API-ID': c.apiId, 'X-API-KEY': c.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const sandbox = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${system.env['NETWORK_SANDBOX_URL']}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await res.json()) as any;
};
const profileOf = (c: Creds, net: string) => c.profiles.find((p) => p.net.code === net)!.id;
const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
const finalStage = async (c: Creds, id: string, timeoutMs = 60000) =>
  eventually(async () => {
    const { body } = await call(c, 'GET', `/posts/${id}`);
    return body.stage === 'PUBLISHED' || body.stage === 'PUBLISHED_FAILED' ? body : null;
  }, timeoutMs, 500);
const keyOf = (postId: string, profileId: string, revision: number) => `${postId}:${profileId}:${revision}`;

describe('publishing through the gateway', () => {
  it('publishes a post scheduled a minute ahead on time, exactly as written, per network settings included', async () => {
    const c = await workspace();
    const gn = profileOf(c, 'generalNet');
    const mb = profileOf(c, 'microblogNet');
    const publishAt = inSeconds(60);
    const created = await call(c, 'POST', '/posts', {
      type: 'STATUS',
      profileIds: [gn, mb],
      publishAt,
      captions: [
        { plainText: 'Launch day for everyone', firstComment: { plainText: 'Details inside' } },
        { plainText: 'Launch day, short version', net: 'microblogNet' },
      ],
      microblogNet: { replySettings: 'FOLLOWING', madeWithAi: true },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const scheduled = await call(c, 'PATCH', `/posts/${id}/stage/schedule`);
    expect(scheduled.body).toMatchObject({ stage: 'SCHEDULED', profiles: [{ publishStatus: 'PENDING' }, { publishStatus: 'PENDING' }] });

    const post = await finalStage(c, id, 150000);

    expect(post.stage).toBe('PUBLISHED');
    expect(post.profiles.map((p: any) => [p.publishStatus, p.publishError])).toEqual([
      ['PUBLISHED', null],
      ['PUBLISHED', null],
    ]);
    const { items } = await sandbox('GET', '/sandbox/admin/published');
    const mine = items.filter((i: any) => i.idempotencyKey.startsWith(`${id}:`));
    expect(mine).toHaveLength(2);
    const byNet = Object.fromEntries(mine.map((i: any) => [i.net, i]));
    expect(byNet.generalNet).toMatchObject({ type: 'STATUS', caption: 'Launch day for everyone', firstComment: 'Details inside', media: [], links: [] });
    expect(byNet.microblogNet).toMatchObject({
      caption: 'Launch day, short version',
      settings: expect.objectContaining({ replySettings: 'FOLLOWING', madeWithAi: true }),
    });
    for (const i of mine) {
      const late = Date.parse(i.publishedAt) - Date.parse(publishAt);
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(30000); // on time: after the due time, within the dispatcher's tick and the worker's work
    }
  }, 200000);

  it('unschedules before dispatch (no job), and publishes only the latest content of an edited scheduled post', async () => {
    const c = await workspace();
    const gn = profileOf(c, 'generalNet');
    const mk = (text: string) => call(c, 'POST', '/posts', { type: 'STATUS', profileIds: [gn], publishAt: inSeconds(8), captions: [{ plainText: text }] });
    const dropped = (await mk('never published')).body.id;
    const edited = (await mk('first draft')).body.id;
    await call(c, 'PATCH', `/posts/${dropped}/stage/schedule`);
    await call(c, 'PATCH', `/posts/${edited}/stage/schedule`);

    const unscheduled = await call(c, 'PATCH', `/posts/${dropped}/stage/unschedule`);
    const put = await call(c, 'PUT', `/posts/${edited}`, { captions: [{ plainText: 'final words' }] });

    expect(unscheduled.body.stage).toBe('DRAFT');
    expect(put.body.stage).toBe('SCHEDULED');
    const post = await finalStage(c, edited);
    expect(post.stage).toBe('PUBLISHED');
    await sleep(2000);
    const { items } = await sandbox('GET', '/sandbox/admin/published');
    expect(items.filter((i: any) => i.idempotencyKey.startsWith(`${dropped}:`))).toEqual([]);
    expect(items.filter((i: any) => i.idempotencyKey.startsWith(`${edited}:`)).map((i: any) => i.caption)).toEqual(['final words']);
    expect((await call(c, 'GET', `/posts/${dropped}`)).body).toMatchObject({ stage: 'DRAFT', profiles: [{ publishStatus: 'CANCELLED' }] });
  }, 120000);

  it('refuses to delete a post while it is being published', async () => {
    const c = await workspace();
    await sandbox('POST', '/sandbox/admin/latency', { publishMs: 3000 });
    try {
      const created = await call(c, 'POST', '/posts', { type: 'STATUS', profileIds: [profileOf(c, 'generalNet')], captions: [{ plainText: 'slow one' }] });
      await call(c, 'PATCH', `/posts/${created.body.id}/stage/publishNow`);

      const del = await call(c, 'DELETE', `/posts/${created.body.id}`);

      expect(del.status).toBe(409);
      expect(del.body.error.code).toBe('PROTECTED_STAGE');
      expect((await finalStage(c, created.body.id)).stage).toBe('PUBLISHED');
    } finally {
      await sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });
    }
  }, 120000);

  it('with 30% transient failures, a revoked token and a rejection: the rest PUBLISHED, FAILED with reasons; retry republishes only the failed profile', async () => {
    const c = await workspace();
    const gn = profileOf(c, 'generalNet');
    const cv = profileOf(c, 'conversationNet');
    const pro = profileOf(c, 'professionalNet');
    await sandbox('POST', '/sandbox/admin/failures', { kind: 'revoked_token', net: 'conversationNet', operation: 'publish', count: 1 });
    await sandbox('POST', '/sandbox/admin/failures', { kind: 'reject_content', net: 'professionalNet', operation: 'publish', count: 1 });
    await sandbox('POST', '/sandbox/admin/failures', { kind: 'server_error', rate: 0.3, operation: 'publish', status: 503 });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const profileIds = i === 0 ? [gn, cv] : i === 1 ? [gn, pro] : [gn];
      ids.push((await call(c, 'POST', '/posts', { type: 'STATUS', profileIds, captions: [{ plainText: `flaky ${i}` }] })).body.id);
    }
    await Promise.all(ids.map((id) => call(c, 'PATCH', `/posts/${id}/stage/publishNow`)));

    const posts = await Promise.all(ids.map((id) => finalStage(c, id, 90000)));
    await sandbox('DELETE', '/sandbox/admin/failures');

    expect(posts.slice(2).every((p) => p.stage === 'PUBLISHED')).toBe(true);
    expect(posts[0]).toMatchObject({
      stage: 'PUBLISHED_FAILED',
      profiles: [
        { publishStatus: 'PUBLISHED', publishError: null },
        { publishStatus: 'FAILED', publishError: { code: 'NETWORK_AUTH_REVOKED', message: expect.stringContaining('token') } },
      ],
    });
    expect(posts[1]).toMatchObject({
      stage: 'PUBLISHED_FAILED',
      profiles: [{ publishStatus: 'PUBLISHED' }, { publishStatus: 'FAILED', publishError: { code: 'NETWORK_REJECTED' } }],
    });
    // The revoked token also turns the profile's statusLevel to ERROR (competitors consumes the event).
    await eventually(async () => (await call(c, 'GET', '/profiles?net=conversationNet')).body.items[0]?.statusLevel === 'ERROR', 20000);
    const published = await sandbox('GET', '/sandbox/admin/published');
    expect(published.duplicateKeys).toEqual([]);
    expect(published.keys.filter((k: any) => ids.some((id) => k.idempotencyKey.startsWith(`${id}:`)))).toHaveLength(12); // 12 on generalNet; the revoked and the rejected are not on the network

    const retried = await call(c, 'PATCH', `/posts/${ids[1]}/stage/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.profiles.map((p: any) => p.publishStatus)).toEqual(['PUBLISHED', 'PENDING']);
    const after = await finalStage(c, ids[1]);
    expect(after).toMatchObject({ stage: 'PUBLISHED', profiles: [{ publishStatus: 'PUBLISHED' }, { publishStatus: 'PUBLISHED', publishError: null }] });
    const keys = (await sandbox('GET', '/sandbox/admin/published')).keys.filter((k: any) => k.idempotencyKey.startsWith(`${ids[1]}:`));
    expect(keys.map((k: any) => k.net).sort()).toEqual(['generalNet', 'professionalNet']); // generalNet not published again
  }, 200000);

  it('publishes 500 posts × 2 profiles due together exactly once through posts and worker SIGKILLs and dropped broker connections', async () => {
    const c = await workspace();
    const profiles = [profileOf(c, 'generalNet'), profileOf(c, 'professionalNet')];
    const N = Number(process.env['E2E_PUBLISH_BATCH'] ?? 500);
    const started = Date.now();
    const ids: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < N) {
          const i = next++;
          const r = await call(c, 'POST', '/posts', { type: 'STATUS', profileIds: profiles, publishAt: inSeconds(3600), captions: [{ plainText: `batch ${i}` }] });
          ids[i] = r.body.id;
        }
      }),
    );
    // Scheduling takes about as long as creating: leave that much (and some) before the due time.
    const dueAt = inSeconds(10 + ((Date.now() - started) / 1000) * 2.5);
    next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < N) {
          const id = ids[next++]!;
          expect((await call(c, 'PUT', `/posts/${id}`, { publishAt: dueAt })).status).toBe(200);
          expect((await call(c, 'PATCH', `/posts/${id}/stage/schedule`)).status).toBe(200);
        }
      }),
    );
    expect(Date.now()).toBeLessThan(Date.parse(dueAt));
    await sandbox('POST', '/sandbox/admin/latency', { publishMs: 100 });
    await sleep(Date.parse(dueAt) - Date.now() + 300);

    // The posts service dies while it dispatches; its claims expire and a new process takes over.
    await system.stopProcess('posts', 'SIGKILL');
    await system.startProcess('posts');
    const publishedCount = async () => (await sandbox('GET', '/sandbox/admin/published')).total as number;
    await eventually(async () => (await publishedCount()) >= N / 5, 120000, 500);
    // A worker dies mid-batch; another starts.
    await system.stopProcess('publisher', 'SIGKILL');
    await system.startProcess('publisher');
    await eventually(async () => (await publishedCount()) >= N, 120000, 500);
    // Stand-in for a RabbitMQ restart (not done on a broker shared with other test runs): every
    // connection of this vhost is closed by the broker; the services reconnect by themselves.
    await vhost.closeConnections();

    const pending = new Set(ids);
    await eventually(
      async () => {
        for (const id of [...pending]) {
          const { body } = await call(c, 'GET', `/posts/${id}`);
          if (body.stage === 'PUBLISHED') pending.delete(id);
          else if (body.stage === 'PUBLISHED_FAILED') throw new Error(`post ${id} failed: ${JSON.stringify(body.profiles)}`);
        }
        return pending.size === 0;
      },
      600000,
      2000,
    );
    await sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });
    const published = await sandbox('GET', '/sandbox/admin/published');
    expect(published.duplicateKeys).toEqual([]);
    const mine = published.keys.filter((k: any) => ids.some((id) => k.idempotencyKey.startsWith(`${id}:`)));
    expect(mine).toHaveLength(N * 2);
    expect(new Set(mine.map((k: any) => k.idempotencyKey)).size).toBe(N * 2);
    expect(mine.every((k: any) => k.posts === 1)).toBe(true);
  }, 900000);
});

describe('the publishing watchdog', () => {
  let wd: TestSystem;
  let wdVhost: TestVhost;

  beforeAll(async () => {
    wdVhost = await createTestVhost(testEnv()['AMQP_URL']!);
    wd = await TestSystem.start(
      {
        AMQP_URL: wdVhost.amqpUrl,
        SANDBOX_ADMIN: 'true',
        POSTS_PUBLISH_WATCHDOG_MS: '3000',
        POSTS_WATCHDOG_TICK_MS: '500',
        POSTS_WATCHDOG_MAX_ROUNDS: '2',
      },
      ['network-sandbox', 'media', 'competitors', 'posts', 'publisher'],
    );
  }, 240000);

  afterAll(async () => {
    await wd?.destroy();
    await wdVhost?.drop();
  }, 60000);

  it('fails a profile whose job gets no answer in time, and the late job then publishes nothing', async () => {
    const c: Creds = await wd.admin(['workspace', 'create', '--name', 'E2E watchdog', '--sandbox-profiles', '--json']);
    const posts = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${wd.url('posts')}/v2${path}`, {
        method,
        headers: internalHeaders('posts', c.workspaceId),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return (await res.json()) as any;
    };
    await wd.stopProcess('publisher'); // no worker answers
    const created = await posts('POST', '/posts', { type: 'STATUS', profileIds: [profileOf(c, 'generalNet')], captions: [{ plainText: 'nobody home' }] });
    await posts('PATCH', `/posts/${created.id}/stage/publishNow`);

    const failed = await eventually(async () => {
      const p = await posts('GET', `/posts/${created.id}`);
      return p.stage === 'PUBLISHED_FAILED' ? p : null;
    }, 60000, 500);

    expect(failed.profiles[0]).toMatchObject({ publishStatus: 'FAILED', publishError: { code: 'PUBLISH_TIMED_OUT' } });
    await wd.startProcess('publisher'); // the queued job and reconcile requests are now handled
    await sleep(5000);
    const res = await fetch(`${wd.env['NETWORK_SANDBOX_URL']}/sandbox/admin/published`);
    expect(((await res.json()) as any).total).toBe(0);
    expect((await posts('GET', `/posts/${created.id}`)).profiles[0].publishStatus).toBe('FAILED');
  }, 120000);
});
