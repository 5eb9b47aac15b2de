import amqp from 'amqplib';
import { PUBLISH_JOBS_QUEUE, PUBLISHING_EXCHANGE, publishRequested, type PublishRequested } from '@social/contracts';
import { Broker } from '@social/events';
import { eventually, sleep, startPrivateRabbit, TestSystem, type PrivateRabbit } from '@social/testkit';
import { inSeconds, publishingClient } from './support/publishing';

// Publishing end to end: the whole system as processes on a RabbitMQ node of its own (so that it
// can really be restarted), posts made through the gateway, published on the network sandbox by
// the publisher worker. Exactly once is counted where it happens: the posts the network created per
// (post, profile). Every post goes to generalNet, which keeps no idempotency keys (a second publish
// would show), and most to professionalNet too, which keeps them for a day.
let rabbit: PrivateRabbit;
let system: TestSystem;
let api: ReturnType<typeof publishingClient>;
/** Every job the posts dispatcher sent, as seen by a queue of the test's own on the jobs' route. */
const dispatched: PublishRequested[] = [];
let tap: Broker;

const PLANS = JSON.stringify({ free: { competitors: 5, requestsPerWindow: 100000000 } });
/** How long before its due time a post is claimed (from then on a change answers 409). */
const CLAIM_LEAD_MS = 2000;
const SETTINGS = {
  PLANS,
  POSTS_DISPATCH_TICK_MS: '1000',
  POSTS_DISPATCH_CLAIM_LEAD_MS: String(CLAIM_LEAD_MS),
  // A crash between claim and send leaves a revision DISPATCHED without jobs: the watchdog's
  // question (after this long) has the publisher publish it.
  POSTS_PUBLISH_WATCHDOG_MS: '45000',
  POSTS_WATCHDOG_TICK_MS: '1000',
  // A test freezes competitors to hold an edit inside posts; posts must wait for it, not give up.
  POSTS_NEIGHBOUR_DEADLINE_MS: '30000',
  NETWORK_TIMEOUT_MS: '3000',
  SANDBOX_MAX_PROCESSING_MS: '4000',
  PUBLISHER_OUTCOME_SETTLE_MS: '6000',
  PUBLISHER_RETRY_BASE_MS: '200',
  PUBLISHER_RETRY_MAX_MS: '2000',
  PUBLISHER_RETRY_AFTER_MAX_MS: '90000',
  PUBLISHER_MAX_ATTEMPTS: '10',
  SHUTDOWN_GRACE_MS: '3000',
};

/** The broker-outage scenario runs on a system of its own beside the other tests (see the end). */
let outage: Promise<OutageScenario>;
interface OutageScenario {
  /** The assertions, once the outage is over; cleans up after them. */
  verify: () => Promise<void>;
  /** Stops the scenario's system and broker (idempotent). */
  cleanup: () => Promise<void>;
}

beforeAll(async () => {
  rabbit = await startPrivateRabbit();
  system = await TestSystem.start({ ...SETTINGS, AMQP_URL: rabbit.amqpUrl });
  api = publishingClient(system);
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
  // A copy of each job tells exactly which (post, revision) was dispatched, and when.
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
  outage = brokerOutageScenario();
  outage.catch(() => undefined); // reported by its own test
}, 240000);

afterEach(() => {
  if (process.env['E2E_DUMP_LOGS'] && system) {
    const state = expect.getState() as { currentTestName?: string };
    for (const name of ['posts', 'publisher'])
      console.log(`--- ${name} (${state.currentTestName})\n${system.logOf(name).slice(-40).join('\n')}`);
  }
});

afterAll(async () => {
  await tap?.close(1000);
  await system?.destroy();
  await rabbit?.destroy();
  await (await outage.catch(() => undefined))?.cleanup();
}, 120000);

const jobsOf = (postId: string) => dispatched.filter((j) => j.postId === postId);
const BATCH = Number(process.env['E2E_PUBLISH_BATCH'] ?? 500);

describe('publishing through the gateway', () => {
  it('publishes a scheduled post on time, exactly as written, per network settings included, once per profile', async () => {
    const c = await api.workspace();
    const gn = api.profileOf(c, 'generalNet');
    const mb = api.profileOf(c, 'microblogNet');
    const client = api.client(c);
    const publishAt = inSeconds(15);
    const created = await client.POST('/posts', {
      body: {
        type: 'STATUS',
        profileIds: [gn, mb],
        publishAt,
        captions: [
          { plainText: 'Launch day for everyone', firstComment: { plainText: 'Details inside' } },
          { plainText: 'Launch day, short version', net: 'microblogNet' },
        ],
        microblogNet: { replySettings: 'FOLLOWING', madeWithAi: true },
      },
    });
    const id = created.data!.id;
    const scheduled = await client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId: id, op: 'schedule' } } });
    expect(scheduled.data).toMatchObject({ stage: 'SCHEDULED', profiles: [{ publishStatus: 'PENDING' }, { publishStatus: 'PENDING' }] });

    const post = await api.finalStage(c, id, 90000);

    expect(post.stage).toBe('PUBLISHED');
    expect(post.profiles.map((p: any) => [p.publishStatus, p.publishError])).toEqual([
      ['PUBLISHED', null],
      ['PUBLISHED', null],
    ]);
    const mine = await api.onNetwork(id);
    expect(mine.map((i) => i.clientKey).sort()).toEqual([`${id}:${gn}`, `${id}:${mb}`].sort());
    const byNet = Object.fromEntries(mine.map((i: any) => [i.net, i]));
    expect(byNet.generalNet).toMatchObject({
      type: 'STATUS',
      caption: 'Launch day for everyone',
      firstComment: 'Details inside',
      media: [],
      links: [],
    });
    expect(byNet.microblogNet).toMatchObject({
      caption: 'Launch day, short version',
      settings: expect.objectContaining({ replySettings: 'FOLLOWING', madeWithAi: true }),
    });
    for (const i of mine as any[]) {
      const late = Date.parse(i.publishedAt) - Date.parse(publishAt);
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(30000); // on time: after the due time, within the worker's work
    }
  }, 200000);

  it('unschedules before dispatch (no job), and publishes only the latest content of a post edited before its due time', async () => {
    const c = await api.workspace();
    const gn = api.profileOf(c, 'generalNet');
    const client = api.client(c);
    const mk = (text: string) =>
      client.POST('/posts', { body: { type: 'STATUS', profileIds: [gn], publishAt: inSeconds(8), captions: [{ plainText: text }] } });
    const dropped = (await mk('never published')).data!.id;
    const edited = (await mk('first draft')).data!.id;
    await client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId: dropped, op: 'schedule' } } });
    await client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId: edited, op: 'schedule' } } });

    const unscheduled = await client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId: dropped, op: 'unschedule' } } });
    const put = await client.PUT('/posts/{postId}', {
      params: { path: { postId: edited } },
      body: { captions: [{ plainText: 'final words' }] },
    });

    expect(unscheduled.data?.stage).toBe('DRAFT');
    expect(put.data?.stage).toBe('SCHEDULED');
    expect((await api.finalStage(c, edited)).stage).toBe('PUBLISHED');
    await sleep(2000);
    expect(await api.onNetwork(dropped)).toEqual([]);
    expect((await api.onNetwork(edited)).map((i) => i.caption)).toEqual(['final words']);
    expect(jobsOf(dropped)).toEqual([]);
    expect((await client.GET('/posts/{postId}', { params: { path: { postId: dropped } } })).data).toMatchObject({
      stage: 'DRAFT',
      profiles: [{ publishStatus: 'CANCELLED' }],
    });
  }, 120000);

  it('refuses to delete a post while it is being published', async () => {
    const c = await api.workspace();
    const client = api.client(c);
    await api.sandbox('POST', '/sandbox/admin/latency', { publishMs: 2000 });
    try {
      const created = await client.POST('/posts', {
        body: { type: 'STATUS', profileIds: [api.profileOf(c, 'generalNet')], captions: [{ plainText: 'slow one' }] },
      });
      const postId = created.data!.id;
      await client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId, op: 'publishNow' } } });

      const del = await client.DELETE('/posts/{postId}', { params: { path: { postId } } });

      expect([del.response.status, del.error?.error.code]).toEqual([409, 'PROTECTED_STAGE']);
      expect((await api.finalStage(c, postId)).stage).toBe('PUBLISHED');
    } finally {
      await api.sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });
    }
  }, 120000);

  it('with 30% transient failures, a revoked token and a rejection: the rest PUBLISHED, FAILED with reasons; retry republishes only the failed profile', async () => {
    const c = await api.workspace();
    const gn = api.profileOf(c, 'generalNet');
    const cv = api.profileOf(c, 'conversationNet');
    const pro = api.profileOf(c, 'professionalNet');
    const client = api.client(c);
    await api.sandbox('POST', '/sandbox/admin/failures', { kind: 'revoked_token', net: 'conversationNet', operation: 'publish', count: 1 });
    await api.sandbox('POST', '/sandbox/admin/failures', {
      kind: 'reject_content',
      net: 'professionalNet',
      operation: 'publish',
      count: 1,
    });
    await api.sandbox('POST', '/sandbox/admin/failures', { kind: 'server_error', rate: 0.3, operation: 'publish', status: 503 });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const profileIds = i === 0 ? [gn, cv] : i === 1 ? [gn, pro] : [gn];
      ids.push((await client.POST('/posts', { body: { type: 'STATUS', profileIds, captions: [{ plainText: `flaky ${i}` }] } })).data!.id);
    }
    await Promise.all(ids.map((postId) => client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId, op: 'publishNow' } } })));

    const posts = await Promise.all(ids.map((id) => api.finalStage(c, id, 90000)));
    await api.sandbox('DELETE', '/sandbox/admin/failures');

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
    await eventually(
      async () =>
        (await client.GET('/profiles', { params: { query: { net: 'conversationNet' } } })).data?.items[0]?.statusLevel === 'ERROR',
      20000,
    );
    const created = await api.createdPerProfile(ids);
    expect([...created.entries()].sort()).toEqual(ids.map((id) => [`${id}:${gn}`, 1]).sort()); // the revoked and the rejected created nothing

    const retried = await client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId: ids[1]!, op: 'retry' } } });
    expect(retried.response.status).toBe(200);
    expect(retried.data!.profiles.map((p) => p.publishStatus)).toEqual(['PUBLISHED', 'PENDING']);
    expect(await api.finalStage(c, ids[1]!)).toMatchObject({
      stage: 'PUBLISHED',
      profiles: [{ publishStatus: 'PUBLISHED' }, { publishStatus: 'PUBLISHED', publishError: null }],
    });
    expect([...(await api.createdPerProfile([ids[1]!])).entries()].sort()).toEqual(
      [
        [`${ids[1]}:${gn}`, 1],
        [`${ids[1]}:${pro}`, 1],
      ].sort(),
    );
  }, 200000);
});

describe('a change racing the claim, with the publisher running', () => {
  it('loses to the dispatch when it passed its checks before the claim but ends after it: 409, and the network and GET show the scheduled content', async () => {
    const c = await api.workspace();
    const profiles = [api.profileOf(c, 'generalNet'), api.profileOf(c, 'professionalNet')];
    const client = api.client(c); // retries: 0, so the 409 below is the edit's own answer
    const dueAt = inSeconds(10);
    const edited = (
      await client.POST('/posts', {
        body: { type: 'STATUS', profileIds: profiles, publishAt: dueAt, captions: [{ plainText: 'old words' }] },
      })
    ).data!.id;
    expect(
      (await client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId: edited, op: 'schedule' } } })).response.status,
    ).toBe(200);
    await sleep(Date.parse(dueAt) - CLAIM_LEAD_MS - 800 - Date.now());
    // The edit checks the time, then validates with competitors, frozen past the claim (and the due time).
    system.signal('competitors', 'SIGSTOP');
    let edit;
    try {
      const pending = client.PUT('/posts/{postId}', {
        params: { path: { postId: edited } },
        body: { captions: [{ plainText: 'new words' }] },
      });
      await eventually(async () => jobsOf(edited).length === 2, 20000, 100);
      system.signal('competitors', 'SIGCONT');
      edit = await pending;
    } finally {
      system.signal('competitors', 'SIGCONT');
    }

    expect([edit.response.status, edit.error?.error.code]).toEqual([409, 'PROTECTED_STAGE']);
    const post = await api.finalStage(c, edited);
    expect(post).toMatchObject({ stage: 'PUBLISHED', captions: [expect.objectContaining({ plainText: 'old words' })] });
    expect((await api.onNetwork(edited)).map((i) => i.caption)).toEqual(['old words', 'old words']);
    expect([...(await api.createdPerProfile([edited])).values()]).toEqual([1, 1]);
  }, 120000);

  it('keeps the network and GET in agreement for edits and unschedules sent ~100 ms before the claim, with 2 s of network latency', async () => {
    const c = await api.workspace();
    const profiles = [api.profileOf(c, 'generalNet'), api.profileOf(c, 'professionalNet')];
    const client = api.client(c); // retries: 0: each change is sent once, at its moment of the race
    await api.sandbox('POST', '/sandbox/admin/latency', { publishMs: 2000 });
    try {
      const dueAt = inSeconds(12);
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        ids.push(
          (
            await client.POST('/posts', {
              body: { type: 'STATUS', profileIds: profiles, publishAt: dueAt, captions: [{ plainText: `before ${i}` }] },
            })
          ).data!.id,
        );
      }
      for (const postId of ids)
        expect((await client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId, op: 'schedule' } } })).response.status).toBe(
          200,
        );
      // Half are edited, half unscheduled, each from 150 ms to 50 ms before the claim: some land
      // before the dispatch claims the post, some after it.
      await sleep(Date.parse(dueAt) - CLAIM_LEAD_MS - 150 - Date.now());
      const changes = await Promise.all(
        ids.map(async (id, i) => {
          await sleep(i * 9);
          const path = { postId: id };
          return i % 2 === 0
            ? client.PUT('/posts/{postId}', { params: { path }, body: { captions: [{ plainText: `after ${i}` }] } })
            : client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { ...path, op: 'unschedule' } } });
        }),
      );

      for (const [i, id] of ids.entries()) {
        const change = changes[i]!;
        expect([200, 409]).toContain(change.response.status);
        const post =
          change.response.status === 200 && i % 2 === 1
            ? (await client.GET('/posts/{postId}', { params: { path: { postId: id } } })).data!
            : await api.finalStage(c, id);
        const held = (await api.onNetwork(id)).map((n) => n.caption);
        if (post.stage === 'DRAFT') {
          expect(held).toEqual([]); // unscheduled in time: nothing was sent
        } else {
          expect(post.stage).toBe('PUBLISHED');
          expect(held).toEqual([post.captions[0]!.plainText, post.captions[0]!.plainText]); // the network has what GET shows
        }
        expect([...(await api.createdPerProfile([id])).values()].every((n) => n === 1)).toBe(true);
      }
    } finally {
      await api.sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });
    }
  }, 180000);
});

describe('outcomes the network leaves unknown', () => {
  it('keeps a MEDIA post PENDING (not FAILED) while its stored-but-unanswered publish cannot be looked up, refuses retry, and ends PUBLISHED once per profile', async () => {
    const c = await api.workspace();
    const profiles = [api.profileOf(c, 'generalNet'), api.profileOf(c, 'professionalNet')];
    const client = api.client(c); // retries: 0, so the 409 of retry below is the first answer
    const image = await client.POST('/assistant/generate-image', { body: { prompt: 'a lighthouse at dawn', aspectRatio: '1:1' } });
    expect(image.response.status).toBe(201);
    // Both networks store the post, then answer after the worker's 3 s network timeout; and every
    // way of asking them whether they hold it fails.
    for (const net of ['generalNet', 'professionalNet']) {
      await api.sandbox('POST', '/sandbox/admin/failures', { kind: 'slow', net, operation: 'publish', latencyMs: 5000, count: 1 });
      await api.sandbox('POST', '/sandbox/admin/failures', { kind: 'server_error', net, operation: 'recentPosts', status: 503 });
      await api.sandbox('POST', '/sandbox/admin/failures', { kind: 'server_error', net, operation: 'lookupPublished', status: 503 });
    }
    try {
      const id = (
        await client.POST('/posts', {
          body: {
            type: 'MEDIA',
            profileIds: profiles,
            captions: [{ plainText: 'lighthouse' }],
            medias: [{ mediaFiles: [{ mediaLibId: image.data!.id }] }],
          },
        })
      ).data!.id;
      const path = { postId: id };
      expect((await client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { ...path, op: 'publishNow' } } })).response.status).toBe(
        200,
      );

      const unknown = await eventually(
        async () => {
          const { data } = await client.GET('/posts/{postId}', { params: { path } });
          return data?.profiles.every((p) => p.publishError?.code === 'PUBLISH_OUTCOME_UNKNOWN') ? data : null;
        },
        30000,
        500,
      );
      expect(unknown).toMatchObject({ stage: 'SCHEDULED', profiles: [{ publishStatus: 'PENDING' }, { publishStatus: 'PENDING' }] });
      await sleep(12000); // past the settle time: nobody may call it FAILED while the network cannot say
      const still = (await client.GET('/posts/{postId}', { params: { path } })).data!;
      expect(still.profiles.map((p) => p.publishStatus)).toEqual(['PENDING', 'PENDING']);
      const retry = await client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { ...path, op: 'retry' } } });
      expect([retry.response.status, retry.error?.error.code]).toEqual([409, 'INVALID_TRANSITION']);

      await api.sandbox('DELETE', '/sandbox/admin/failures');
      const done = await api.finalStage(c, id, 60000);

      expect(done).toMatchObject({
        stage: 'PUBLISHED',
        profiles: [
          { publishStatus: 'PUBLISHED', publishError: null },
          { publishStatus: 'PUBLISHED', publishError: null },
        ],
      });
      expect([...(await api.createdPerProfile([id])).values()]).toEqual([1, 1]);
    } finally {
      await api.sandbox('DELETE', '/sandbox/admin/failures');
    }
  }, 180000);
});

describe('retries', () => {
  it("waits out one account's Retry-After of an hour (capped) while 200 other posts publish without waiting behind it", async () => {
    const c = await api.workspace();
    const gn = api.profileOf(c, 'generalNet');
    const pro = api.profileOf(c, 'professionalNet');
    const client = api.client(c);
    const limited = (
      await client.POST('/posts', { body: { type: 'STATUS', profileIds: [pro], captions: [{ plainText: 'rate limited' }] } })
    ).data!.id;
    await api.sandbox('POST', '/sandbox/admin/failures', {
      kind: 'rate_limit',
      net: 'professionalNet',
      operation: 'publish',
      retryAfterSeconds: 3600,
      count: 1,
    });
    await client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId: limited, op: 'publishNow' } } });
    await eventually(async () => (await api.sandbox('GET', '/sandbox/admin/failures')).items.length === 0, 20000); // it hit the limit
    // Every other post is turned away once too (the network did not act): their retries go through
    // the delay queues behind the hour-long wait.
    await api.sandbox('POST', '/sandbox/admin/failures', {
      kind: 'server_error',
      net: 'generalNet',
      operation: 'publish',
      status: 503,
      count: 200,
    });

    const { ids } = await api.scheduleBatch(c, 200, [gn], 'on time');

    await api.expectEachPublishedOnce(c, ids, [gn], 120000);
    // Not held up behind the hour (capped at 90 s here): all 200 are out while the limited post
    // still waits. (Ordering, not a time limit: the machine's speed must not decide the test.)
    expect(await api.onNetwork(limited)).toEqual([]);
    const later = await api.finalStage(c, limited, 180000);
    expect(later).toMatchObject({ stage: 'PUBLISHED' });
    expect([...(await api.createdPerProfile([limited])).values()]).toEqual([1]);
  }, 420000);
});

describe('two posts processes dispatching', () => {
  it('publishes a batch due together exactly once per (post, profile) with a second posts replica racing the first', async () => {
    await system.startReplica('posts', 'posts-2');
    try {
      const c = await api.workspace();
      const profiles = [api.profileOf(c, 'generalNet'), api.profileOf(c, 'professionalNet')];
      const { ids } = await api.scheduleBatch(c, BATCH, profiles, 'two dispatchers');

      await api.expectEachPublishedOnce(c, ids, profiles);
      const byRevision = new Map<string, number>();
      for (const j of dispatched)
        if (ids.includes(j.postId)) byRevision.set(`${j.postId}:${j.profileId}`, (byRevision.get(`${j.postId}:${j.profileId}`) ?? 0) + 1);
      expect([...byRevision.values()].every((n) => n === 1)).toBe(true); // each revision claimed by one replica only
      expect(system.logOf('posts-2').some((l) => l.includes('publish jobs dispatched'))).toBe(true); // both replicas took part
    } finally {
      await system.stopProcess('posts-2');
    }
  }, 900000);
});

describe('crashes', () => {
  // BATCH posts × 2 profiles due at one moment, one disruption each.
  it('publishes a batch due together exactly once when the posts service is SIGKILLed while it dispatches', async () => {
    const c = await api.workspace();
    const profiles = [api.profileOf(c, 'generalNet'), api.profileOf(c, 'professionalNet')];
    await api.sandbox('POST', '/sandbox/admin/latency', { publishMs: 100 });
    try {
      const { ids } = await api.scheduleBatch(c, BATCH, profiles, 'posts killed');
      const batch = new Set(ids);
      const sent = () => dispatched.filter((j) => batch.has(j.postId)).length;
      await eventually(async () => sent() > 0, 120000, 20);
      await system.stopProcess('posts', 'SIGKILL');
      const atKill = sent();
      await system.startProcess('posts');

      await api.expectEachPublishedOnce(c, ids, profiles);
      expect(atKill).toBeLessThan(BATCH * 2); // it died with the dispatch unfinished
    } finally {
      await api.sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });
    }
  }, 900000);

  it('publishes a batch due together exactly once when a publisher worker is SIGKILLed mid-batch and another starts', async () => {
    await disruptMidBatch({
      disrupt: async () => void (await system.stopProcess('publisher', 'SIGKILL')),
      recover: () => system.startProcess('publisher'),
    });
  }, 900000);

  it('publishes a batch due together exactly once when RabbitMQ restarts mid-batch (the services reconnect by themselves)', async () => {
    await disruptMidBatch({ disrupt: async () => void (await rabbit.restart({ downMs: 2000 })) });
  }, 900000);
});

/**
 * Schedules BATCH posts × 2 profiles due together with a 100 ms network latency, runs `disrupt`
 * once a fifth of the batch is on the network, then `recover`, and proves every post ended
 * PUBLISHED with each (post, profile) exactly once on the network.
 */
async function disruptMidBatch(how: { disrupt: () => Promise<void>; recover?: () => Promise<void> }): Promise<void> {
  const c = await api.workspace();
  const profiles = [api.profileOf(c, 'generalNet'), api.profileOf(c, 'professionalNet')];
  await api.sandbox('POST', '/sandbox/admin/latency', { publishMs: 100 });
  try {
    const count = async () => (await api.sandbox('GET', '/sandbox/admin/published/count')).total as number;
    const before = await count();
    const { ids } = await api.scheduleBatch(c, BATCH, profiles, 'disrupted');

    await eventually(async () => (await count()) >= before + BATCH / 5, 120000, 500);
    // Read before the disruption: after it, reconnected services may already have finished the batch.
    const atDisruption = await count();
    await how.disrupt();
    await how.recover?.();

    await api.expectEachPublishedOnce(c, ids, profiles);
    expect(atDisruption - before).toBeLessThan(BATCH * 2); // the disruption hit an unfinished batch
  } finally {
    await api.sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });
  }
}

describe('the broker down for five minutes', () => {
  it('leaves no post behind: due, dispatched, watched or lost, every post ends published once per profile', async () => {
    const { verify } = await outage;
    await verify();
  }, 900000);
});

/**
 * A system of its own on a RabbitMQ node of its own, started with the file so that its five
 * minutes of outage pass while the other tests run. Posts due before, during and after the outage;
 * the jobs of one batch lost from the queue (as a crash of the broker's disk would), so only the
 * watchdog, whose checks fall due while the broker is down, can bring them back. Resolves with the
 * assertions to make, and cleans up after them.
 */
async function brokerOutageScenario(): Promise<OutageScenario> {
  const node = await startPrivateRabbit();
  const sys = await TestSystem.start(
    { ...SETTINGS, AMQP_URL: node.amqpUrl, POSTS_PUBLISH_WATCHDOG_MS: '60000', POSTS_WATCHDOG_MAX_INTERVAL_MS: '120000' },
    ['network-sandbox', 'media', 'competitors', 'posts', 'publisher', 'gateway'],
  );
  const o = publishingClient(sys);
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      await sys.destroy().catch(() => undefined);
      await node.destroy().catch(() => undefined);
    })());
  try {
    const c = await o.workspace('E2E broker outage');
    const profiles = [o.profileOf(c, 'generalNet'), o.profileOf(c, 'professionalNet')];
    const client = o.client(c);
    // Due while the broker is down.
    const duringIds: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await client.POST('/posts', {
        body: { type: 'STATUS', profileIds: profiles, publishAt: inSeconds(150), captions: [{ plainText: `due while down ${i}` }] },
      });
      const postId = r.data!.id;
      duringIds.push(postId);
      expect((await client.PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId, op: 'schedule' } } })).response.status).toBe(
        200,
      );
    }
    // Lost: dispatched while no worker runs, then their jobs vanish from the queue. Their watchdog
    // checks fall due while the broker is down.
    await sys.stopProcess('publisher');
    const lost = await o.scheduleBatch(c, 10, profiles, 'lost jobs');
    await eventually(async () => (await queueDepth(node.amqpUrl, PUBLISH_JOBS_QUEUE)) === 20, 60000, 200);
    await purge(node.amqpUrl, PUBLISH_JOBS_QUEUE);
    await sys.startProcess('publisher');
    // In flight when the broker stops.
    await o.sandbox('POST', '/sandbox/admin/latency', { publishMs: 1500 });
    const inFlight = await o.scheduleBatch(c, 10, profiles, 'in flight');
    await node.restart({ downMs: 5 * 60_000 });
    await o.sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });
    const verify = async () => {
      try {
        const all = [...lost.ids, ...inFlight.ids, ...duringIds];
        await o.expectEachPublishedOnce(c, all, profiles, 300000);
      } finally {
        await cleanup();
      }
    };
    return { verify, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

// The broker's queues are read and purged over AMQP directly: RabbitMQ, not our public API.
async function queueDepth(url: string, queue: string): Promise<number> {
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createChannel();
    return (await ch.checkQueue(queue)).messageCount;
  } finally {
    await conn.close();
  }
}

async function purge(url: string, queue: string): Promise<void> {
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createChannel();
    await ch.purgeQueue(queue);
  } finally {
    await conn.close();
  }
}
