import { PUBLISHING_EXCHANGE, publishRequested, type PublishRequested } from '@social/contracts';
import { Broker } from '@social/events';
import {
  createTestVhost,
  eventually,
  internalHeaders,
  sleep,
  startPrivateRabbit,
  testEnv,
  TestSystem,
  type PrivateRabbit,
  type TestVhost,
} from '@social/testkit';

// Publishing end to end: the whole system as processes on a RabbitMQ node of its own (so that it
// can really be restarted), posts made through the gateway, published on the network sandbox by
// the publisher worker.
let rabbit: PrivateRabbit;
let system: TestSystem;
let gw: string;
/** Every job the posts dispatcher sent, as seen by a queue of the test's own on the jobs' route. */
const dispatched: PublishRequested[] = [];
let tap: Broker;

const PLANS = JSON.stringify({ free: { competitors: 5, requestsPerWindow: 100000000 } });

beforeAll(async () => {
  rabbit = await startPrivateRabbit();
  system = await TestSystem.start({
    PLANS,
    AMQP_URL: rabbit.amqpUrl,
    SANDBOX_ADMIN: 'true',
    POSTS_DISPATCH_TICK_MS: '1000',
    POSTS_DISPATCH_LEASE_MS: '5000',
    POSTS_PUBLISH_WATCHDOG_MS: '120000',
    // A test freezes competitors to hold an edit inside posts; posts must wait for it, not give up.
    POSTS_NEIGHBOUR_DEADLINE_MS: '30000',
    PUBLISHER_RETRY_BASE_MS: '200',
    PUBLISHER_RETRY_MAX_MS: '2000',
    PUBLISHER_MAX_ATTEMPTS: '10',
    SHUTDOWN_GRACE_MS: '3000',
  });
  gw = `${system.gatewayUrl}/v2`;
  // Reconnecting a profile asks insights for a backfill; this broker has no insights queue unless
  // one is declared, and competitors refuses an unroutable event.
  const sink = await Broker.connect({
    url: rabbit.amqpUrl,
    connectionName: 'e2e-sink',
    topology: {
      exchanges: [{ name: 'social.profiles', type: 'topic' }],
      queues: [{ name: 'e2e.collection-sink', bindings: [{ exchange: 'social.profiles', routingKey: 'insights.collection.requested' }] }],
    },
  });
  await sink.close();
  // Queue message counts of the broker lag by seconds (quorum queue metrics); a copy of each job
  // tells exactly which (post, revision) was dispatched, and when. (The jobs queue is declared by
  // the publisher at start, so this second binding never makes an otherwise unroutable job land.)
  tap = await Broker.connect({
    url: rabbit.amqpUrl,
    connectionName: 'e2e-job-tap',
    topology: {
      exchanges: [{ name: PUBLISHING_EXCHANGE, type: 'topic' }],
      queues: [{ name: 'e2e.dispatched-jobs', bindings: [{ exchange: PUBLISHING_EXCHANGE, routingKey: publishRequested.type }] }],
    },
  });
  await tap.consume('e2e.dispatched-jobs', [publishRequested], (env) => {
    if (env.payload.mode !== 'reconcile') dispatched.push(env.payload);
  });
}, 240000);

afterEach(() => {
  // On failure, what the publishing processes said last.
  const state = expect.getState() as { assertionCalls: number; currentTestName?: string; testPath?: string } & Record<string, unknown>;
  if (process.env['E2E_DUMP_LOGS'] && system) {
    for (const name of ['posts', 'publisher', 'competitors']) console.log(`--- ${name} (${state.currentTestName})\n${system.logOf(name).slice(-40).join('\n')}`);
  }
});

afterAll(async () => {
  await tap?.close(1000);
  await system?.destroy();
  await rabbit?.destroy();
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
/** The jobs dispatched for a post so far, in order. */
const jobsOf = (postId: string) => dispatched.filter((j) => j.postId === postId);
const publishedCount = async () => (await sandbox('GET', '/sandbox/admin/published')).total as number;

/**
 * N posts on two profiles each, scheduled through the gateway for one moment a little ahead;
 * resolves just after that moment with their ids.
 */
async function scheduleBatch(c: Creds, N: number): Promise<string[]> {
  const profiles = [profileOf(c, 'generalNet'), profileOf(c, 'professionalNet')];
  const started = Date.now();
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < N) {
        const i = next++;
        const r = await call(c, 'POST', '/posts', { type: 'STATUS', profileIds: profiles, publishAt: inSeconds(3600), captions: [{ plainText: `batch ${i}` }] });
        if (r.status !== 201) throw new Error(`POST /posts: ${r.status} ${JSON.stringify(r.body)}`);
        ids[i] = r.body.id;
      }
    }),
  );
  // Scheduling is two validated requests per post where creating was one: it takes about twice as
  // long. Leave 1.75 times that (and some) before the due time: a post scheduled after it would
  // be refused (publishAt in the past), and the machine's load varies.
  const dueAt = inSeconds(10 + ((Date.now() - started) / 1000) * 3.5);
  next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < N) {
        const id = ids[next++]!;
        for (const [method, path, body] of [['PUT', `/posts/${id}`, { publishAt: dueAt }], ['PATCH', `/posts/${id}/stage/schedule`, undefined]] as const) {
          const r = await call(c, method, path, body);
          if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
        }
      }
    }),
  );
  expect(Date.now()).toBeLessThan(Date.parse(dueAt));
  await sleep(Date.parse(dueAt) - Date.now() + 300);
  return ids;
}

/** Every post PUBLISHED, and the sandbox holds each (post, profile) exactly once. */
async function expectEachPublishedOnce(c: Creds, ids: string[]): Promise<void> {
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
  const published = await sandbox('GET', '/sandbox/admin/published');
  expect(published.duplicateKeys).toEqual([]);
  const mine = published.keys.filter((k: any) => ids.some((id) => k.idempotencyKey.startsWith(`${id}:`)));
  expect(mine).toHaveLength(ids.length * 2);
  expect(new Set(mine.map((k: any) => k.idempotencyKey)).size).toBe(ids.length * 2);
  expect(mine.every((k: any) => k.posts === 1)).toBe(true);
}

const BATCH = Number(process.env['E2E_PUBLISH_BATCH'] ?? 500);

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

  it('refuses unschedule and edits once the post\'s job is dispatched, and publishes it as scheduled, once', async () => {
    const c = await workspace();
    const gn = profileOf(c, 'generalNet');
    await system.stopProcess('publisher'); // the dispatched job waits in the queue
    let id: string;
    try {
      id = (await call(c, 'POST', '/posts', { type: 'STATUS', profileIds: [gn], publishAt: inSeconds(6), captions: [{ plainText: 'as scheduled' }] })).body.id;
      expect((await call(c, 'PATCH', `/posts/${id}/stage/schedule`)).status).toBe(200);
      await eventually(async () => jobsOf(id).length > 0, 60000, 100);

      const unscheduled = await call(c, 'PATCH', `/posts/${id}/stage/unschedule`);
      const edited = await call(c, 'PUT', `/posts/${id}`, { captions: [{ plainText: 'too late' }] });

      expect([unscheduled.status, unscheduled.body.error?.code]).toEqual([409, 'PROTECTED_STAGE']);
      expect([edited.status, edited.body.error?.code]).toEqual([409, 'PROTECTED_STAGE']);
    } finally {
      await system.startProcess('publisher');
    }
    const post = await finalStage(c, id);
    expect(post).toMatchObject({ stage: 'PUBLISHED', profiles: [{ publishStatus: 'PUBLISHED' }] });
    const { items } = await sandbox('GET', '/sandbox/admin/published');
    expect(items.filter((i: any) => i.idempotencyKey.startsWith(`${id}:`)).map((i: any) => i.caption)).toEqual(['as scheduled']);
  }, 120000);

  it('drops the jobs of a revision whose edit or reschedule, accepted before the due time, lands after the dispatch: only the new content is published, and the unscheduled post nowhere', async () => {
    const c = await workspace();
    const gn = profileOf(c, 'generalNet');
    await system.stopProcess('publisher'); // dispatched jobs wait in the queue
    let frozen = false;
    let publisherBack = false;
    try {
      const dueAt = inSeconds(12);
      const mk = async (text: string) => (await call(c, 'POST', '/posts', { type: 'STATUS', profileIds: [gn], publishAt: dueAt, captions: [{ plainText: text }] })).body.id as string;
      const edited = await mk('old words');
      const moved = await mk('moved away');
      for (const id of [edited, moved]) expect((await call(c, 'PATCH', `/posts/${id}/stage/schedule`)).status).toBe(200);
      // posts checks the time of an edit first, then validates the post with competitors (are the
      // profiles publish-ready?): with competitors frozen, both edits wait inside posts while the
      // due time passes and the dispatcher sends the jobs of the revision being replaced.
      system.signal('competitors', 'SIGSTOP');
      frozen = true;
      const edit = call(c, 'PUT', `/posts/${edited}`, { captions: [{ plainText: 'new words' }] });
      const move = call(c, 'PUT', `/posts/${moved}`, { publishAt: inSeconds(3600) });
      await eventually(async () => jobsOf(edited).length > 0 && jobsOf(moved).length > 0, 60000, 100);
      system.signal('competitors', 'SIGCONT');
      frozen = false;
      const [staleEdit] = jobsOf(edited);
      const [staleMove] = jobsOf(moved);

      expect((await edit).body).toMatchObject({ stage: 'SCHEDULED', captions: [expect.objectContaining({ plainText: 'new words' })] });
      expect((await move).body.stage).toBe('SCHEDULED');
      expect((await call(c, 'PATCH', `/posts/${moved}/stage/unschedule`)).body.stage).toBe('DRAFT');
      await system.startProcess('publisher');
      publisherBack = true;

      expect(await finalStage(c, edited)).toMatchObject({ stage: 'PUBLISHED', profiles: [{ publishStatus: 'PUBLISHED' }] });
      const current = jobsOf(edited).at(-1)!;
      expect(current.revision).toBeGreaterThan(staleEdit!.revision); // the edit re-planned after the dispatch
      await sleep(3000); // the stale jobs were handled alongside the new one; give any effect of theirs time to show
      const { items } = await sandbox('GET', '/sandbox/admin/published');
      expect(items.filter((i: any) => i.idempotencyKey.startsWith(`${edited}:`)).map((i: any) => [i.idempotencyKey, i.caption])).toEqual([
        [`${edited}:${gn}:${current.revision}`, 'new words'],
      ]);
      expect(items.filter((i: any) => i.idempotencyKey.startsWith(`${moved}:`))).toEqual([]);
      expect(jobsOf(moved).map((j) => j.revision)).toEqual([staleMove!.revision]);
      expect((await call(c, 'GET', `/posts/${moved}`)).body).toMatchObject({ stage: 'DRAFT', profiles: [{ publishStatus: 'CANCELLED' }] });
    } finally {
      if (frozen) system.signal('competitors', 'SIGCONT');
      if (!publisherBack) await system.startProcess('publisher');
    }
  }, 180000);

  // The crash-safety proofs: BATCH posts × 2 profiles due at one moment, one disruption each.
  it('publishes a batch due together exactly once when the posts service is SIGKILLed while it dispatches', async () => {
    const c = await workspace();
    await sandbox('POST', '/sandbox/admin/latency', { publishMs: 100 });
    try {
      const ids = await scheduleBatch(c, BATCH);

      // posts dies as soon as the first job of the batch is out; its claims expire and the new
      // process dispatches them again.
      const batch = new Set(ids);
      const dispatchedOfBatch = () => dispatched.filter((j) => batch.has(j.postId)).length;
      await eventually(async () => dispatchedOfBatch() > 0, 120000, 20);
      await system.stopProcess('posts', 'SIGKILL');
      const atKill = dispatchedOfBatch();
      await system.startProcess('posts');

      await expectEachPublishedOnce(c, ids);
      expect(atKill).toBeLessThan(BATCH * 2); // it died with the dispatch unfinished
    } finally {
      await sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });
    }
  }, 900000);

  it('publishes a batch due together exactly once when a publisher worker is SIGKILLed mid-batch and another starts', async () => {
    await disruptMidBatch({
      disrupt: async () => void (await system.stopProcess('publisher', 'SIGKILL')),
      recover: () => system.startProcess('publisher'),
    });
  }, 900000);

  it('publishes a batch due together exactly once when RabbitMQ restarts mid-batch (the services reconnect by themselves)', async () => {
    await disruptMidBatch({
      // A real restart of this file's own node: every connection drops, the node is down for a
      // few seconds, queues and their messages come back from disk.
      disrupt: async () => {
        const restart = await rabbit.restart({ downMs: 2000 });
        if (process.env['E2E_DUMP_LOGS']) console.log(`broker restart: stop ${restart.stopMs} ms, start ${restart.startMs} ms`);
      },
    });
  }, 900000);
});

/**
 * Schedules BATCH posts × 2 profiles due together with a 100 ms network latency, runs `disrupt`
 * once a fifth of the batch is on the network, then `recover`, and proves every post ended
 * PUBLISHED with each (post, profile) exactly once on the network.
 */
async function disruptMidBatch(how: { disrupt: () => Promise<void>; recover?: () => Promise<void> }): Promise<void> {
  const c = await workspace();
  await sandbox('POST', '/sandbox/admin/latency', { publishMs: 100 });
  try {
    const before = await publishedCount();
    const ids = await scheduleBatch(c, BATCH);

    await eventually(async () => (await publishedCount()) >= before + BATCH / 5, 120000, 500);
    await how.disrupt();
    const atDisruption = await publishedCount();
    await how.recover?.();

    await expectEachPublishedOnce(c, ids);
    expect(atDisruption - before).toBeLessThan(BATCH * 2); // the disruption hit an unfinished batch
  } finally {
    await sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });
  }
}

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
