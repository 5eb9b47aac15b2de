import { PUBLISHING_EXCHANGE, publishRequested, type PublishRequested } from '@social/contracts';
import { Broker } from '@social/events';
import { createTestVhost, testEnv, type TestVhost } from '@social/testkit';
import mongoose from 'mongoose';
import { loadPostsConfig, postsDbName } from '../src/config';
import { PostsService } from '../src/posts-service';
import { startHarness, type Harness } from './support/harness';

// Due posts are listed ahead, claimed CLAIM_LEAD before their due time with a compare-and-set on
// the post, and their jobs sent at the due time: never early. A change that was under way when the
// claim came loses (409), and so does any change after it, so the network gets what the post says.
const WS = 'ws-dispatch-timing';
const JOBS = 'test.dispatch-timing.jobs';
let vhost: TestVhost;
let h: Harness;
let db: mongoose.Connection;
let jobsBroker: Broker;
const jobs: (PublishRequested & { receivedAt: number })[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CLAIM_LEAD = 1000;

beforeAll(async () => {
  vhost = await createTestVhost(testEnv()['AMQP_URL']!);
  // A tick of 300 ms with 1.5 s of look-ahead: every post is seen several times before it is claimed.
  h = await startHarness({
    AMQP_URL: vhost.amqpUrl,
    POSTS_DISPATCH_TICK_MS: '300',
    POSTS_DISPATCH_LOOKAHEAD_MS: '1500',
    POSTS_DISPATCH_CLAIM_LEAD_MS: String(CLAIM_LEAD),
    POSTS_NEIGHBOUR_DEADLINE_MS: '20000',
  });
  h.profiles.add(WS, { id: 'p1', net: 'generalNet' });
  db = await mongoose
    .createConnection(h.env['MONGO_URL']!, { dbName: postsDbName({ mongoDbPrefix: h.env['MONGO_DB_PREFIX']! }) })
    .asPromise();
  // Stands in for the publisher's jobs queue: records each job and when it arrived. Declared with
  // its binding only when a test wants jobs to be routable.
  jobsBroker = await Broker.connect({
    url: vhost.amqpUrl,
    connectionName: 'test-jobs',
    topology: { exchanges: [{ name: PUBLISHING_EXCHANGE, type: 'topic' }], queues: [] },
  });
});
afterAll(async () => {
  await jobsBroker?.close(1000);
  await db?.close();
  await h?.stop();
  await vhost?.drop();
});

async function routeJobs(): Promise<void> {
  await jobsBroker.close(1000);
  jobsBroker = await Broker.connect({
    url: vhost.amqpUrl,
    connectionName: 'test-jobs',
    topology: {
      exchanges: [{ name: PUBLISHING_EXCHANGE, type: 'topic' }],
      queues: [{ name: JOBS, bindings: [{ exchange: PUBLISHING_EXCHANGE, routingKey: publishRequested.type }] }],
    },
  });
  await jobsBroker.consume(JOBS, [publishRequested], async (env) => {
    jobs.push({ ...env.payload, receivedAt: Date.now() });
  });
}

/** A post scheduled to publish `inMs` from now. */
async function scheduled(inMs: number, caption = 'on time'): Promise<{ id: string; dueAt: number }> {
  const publishAt = new Date(Date.now() + inMs);
  const post = (
    await h.call(WS, 'POST', '/posts', {
      type: 'STATUS',
      profileIds: ['p1'],
      captions: [{ plainText: caption }],
      publishAt: publishAt.toISOString(),
    })
  ).body;
  expect((await h.call(WS, 'PATCH', `/posts/${post.id}/stage/schedule`)).status).toBe(200);
  return { id: post.id, dueAt: publishAt.getTime() };
}

const stored = (postId: string) => db.collection('posts').findOne({ _id: postId as never });
const jobsOf = (postId: string) => jobs.filter((j) => j.postId === postId);
async function until(what: () => Promise<boolean> | boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}

describe('dispatch', () => {
  it('hands a revision whose jobs could not be sent back, and sends it once a queue takes jobs', async () => {
    const { id } = await scheduled(3000); // a lead that a loaded machine can schedule within
    // No queue is bound yet: the broker refuses the job as unroutable.
    await until(async () => ((await stored(id))?.['version'] as number) >= 3, 30_000); // claimed, then handed back
    expect((await stored(id))?.['dispatch']).toMatchObject({ state: 'WAITING' });

    await routeJobs();
    await until(() => jobsOf(id).length > 0, 30_000);

    expect((await stored(id))?.['dispatch']).toMatchObject({ state: 'DISPATCHED' });
    expect(jobsOf(id)).toHaveLength(1);
  });

  it("sends a scheduled post's job at its due time, not before, with the content the post has", async () => {
    const { id, dueAt } = await scheduled(3000, 'exactly this');

    await until(() => jobsOf(id).length > 0, 30_000);

    const [job] = jobsOf(id);
    expect(job!.receivedAt).toBeGreaterThanOrEqual(dueAt); // never early
    expect(job).toMatchObject({
      revision: 1,
      net: 'generalNet',
      content: { type: 'STATUS', caption: 'exactly this', mediaLibIds: [], links: [] },
    });
    expect((await stored(id))?.['dispatch']).toMatchObject({ state: 'DISPATCHED' });
  });

  it('claims a post CLAIM_LEAD before its due time: a change after the claim answers 409 at once, and the job leaves at the due time', async () => {
    const { id, dueAt } = await scheduled(4000, 'as claimed');
    await until(async () => (await stored(id))?.['dispatch']?.state === 'DISPATCHED', 30_000);
    const claimedAt = Date.now();

    const edit = await h.call(WS, 'PUT', `/posts/${id}`, { captions: [{ plainText: 'after the claim' }] });
    const unschedule = await h.call(WS, 'PATCH', `/posts/${id}/stage/unschedule`);

    expect(claimedAt).toBeGreaterThanOrEqual(dueAt - CLAIM_LEAD); // never claimed before its claim time
    expect(Date.now()).toBeLessThan(dueAt); // the answers came before the due time: the claim refused them
    expect([edit.status, edit.body.error?.code]).toEqual([409, 'PROTECTED_STAGE']);
    expect([unschedule.status, unschedule.body.error?.code]).toEqual([409, 'PROTECTED_STAGE']);
    await until(() => jobsOf(id).length > 0, 30_000);
    expect(jobsOf(id)[0]!.receivedAt).toBeGreaterThanOrEqual(dueAt);
    expect(jobsOf(id).map((j) => j.content?.caption)).toEqual(['as claimed']);
  });

  it('hands back what it claimed when it stops before the due time; another replica sends it on time, once', async () => {
    // A second replica that claims earlier than the harness's: it holds the post when it stops.
    const early = await PostsService.create(
      loadPostsConfig({ ...h.env, AMQP_URL: vhost.amqpUrl, POSTS_PORT: '0', POSTS_GRPC_PORT: '0', POSTS_DISPATCH_CLAIM_LEAD_MS: '4000' }),
    );
    let stopped = false;
    try {
      const { id, dueAt } = await scheduled(6000, 'handed over');
      await until(async () => (await stored(id))?.['dispatch']?.state === 'DISPATCHED', 30_000);
      expect(Date.now()).toBeLessThan(dueAt - CLAIM_LEAD); // claimed by the early replica
      const claimedVersion = (await stored(id))?.['version'] as number;

      await early.destroy();
      stopped = true;

      const back = await stored(id);
      expect(back?.['dispatch']).toMatchObject({ state: 'WAITING', dueAt: new Date(dueAt) });
      expect(back?.['version']).toBe(claimedVersion + 1);
      await until(() => jobsOf(id).length > 0, 30_000);
      await sleep(1000);
      expect(jobsOf(id)).toHaveLength(1);
      expect(jobsOf(id)[0]!.receivedAt).toBeGreaterThanOrEqual(dueAt);
    } finally {
      if (!stopped) await early.destroy();
    }
  });

  it('sends nothing for a post unscheduled while it waits for its claim', async () => {
    const { id, dueAt } = await scheduled(3500);
    await sleep(dueAt - CLAIM_LEAD - 1000 - Date.now()); // inside the look-ahead: listed, waiting in memory

    const res = await h.call(WS, 'PATCH', `/posts/${id}/stage/unschedule`);
    expect(res.body.stage).toBe('DRAFT');
    await sleep(dueAt + 2000 - Date.now());

    expect(jobsOf(id)).toEqual([]);
  });

  it('answers 409 to an edit that passed its checks before the claim but ends after it, and keeps the dispatched content', async () => {
    const { id, dueAt } = await scheduled(4000, 'as scheduled');
    await sleep(dueAt - CLAIM_LEAD - 1000 - Date.now());
    h.profiles.delayMs = 3000; // the edit's validation is still running when the post is claimed
    let edit;
    try {
      edit = await h.call(WS, 'PUT', `/posts/${id}`, { captions: [{ plainText: 'too late' }] });
    } finally {
      h.profiles.delayMs = 0;
    }

    expect([edit.status, edit.body.error?.code]).toEqual([409, 'PROTECTED_STAGE']);
    await until(() => jobsOf(id).length > 0, 30_000);
    expect(jobsOf(id).map((j) => j.content?.caption)).toEqual(['as scheduled']);
    const now = (await h.call(WS, 'GET', `/posts/${id}`)).body;
    expect(now).toMatchObject({ stage: 'SCHEDULED', captions: [expect.objectContaining({ plainText: 'as scheduled' })] });
  });
});
