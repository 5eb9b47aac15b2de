import { PUBLISHING_EXCHANGE, publishRequested } from '@social/contracts';
import { Broker } from '@social/events';
import { createTestVhost, dropDatabases, testEnv, type TestVhost } from '@social/testkit';
import mongoose from 'mongoose';
import { postsDbName } from '../src/config';
import { startHarness, type Harness } from './support/harness';

// Tasks are claimed before they are due and their jobs sent at the due time itself: never early,
// never a tick late, and a change made between the claim and the due time still counts.
const WS = 'ws-dispatch-timing';
let vhost: TestVhost;
let h: Harness;
let db: mongoose.Connection;
let jobsBroker: Broker;
let serviceStopped = false;
const jobs: { postId: string; receivedAt: number }[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  vhost = await createTestVhost(testEnv()['AMQP_URL']!);
  // A tick of 300 ms with 1.5 s of look-ahead: every task is seen several times before it is due.
  h = await startHarness({ AMQP_URL: vhost.amqpUrl, POSTS_DISPATCH_TICK_MS: '300', POSTS_DISPATCH_LOOKAHEAD_MS: '1500' });
  h.profiles.add(WS, { id: 'p1', net: 'generalNet' });
  db = await mongoose.createConnection(h.env['MONGO_URL']!, { dbName: postsDbName({ mongoDbPrefix: h.env['MONGO_DB_PREFIX']! }) }).asPromise();
  // Stands in for the publisher's jobs queue: records when each job arrives.
  const queue = 'test.dispatch-timing.jobs';
  jobsBroker = await Broker.connect({
    url: vhost.amqpUrl,
    connectionName: 'test-jobs',
    topology: { exchanges: [{ name: PUBLISHING_EXCHANGE, type: 'topic' }], queues: [{ name: queue, bindings: [{ exchange: PUBLISHING_EXCHANGE, routingKey: publishRequested.type }] }] },
  });
  await jobsBroker.consume(queue, [publishRequested], async (env) => {
    jobs.push({ postId: env.payload.postId, receivedAt: Date.now() });
  });
});
afterAll(async () => {
  await jobsBroker?.close(1000);
  await db?.close();
  if (!serviceStopped) await h?.stop();
  else {
    await h.media.stop();
    await h.profiles.stop();
    await dropDatabases(h.env['MONGO_URL']!, h.env['MONGO_DB_PREFIX']!);
  }
  await vhost?.drop();
});

/** A post scheduled to publish `inMs` from now (whole seconds, as users pick times). */
async function scheduled(inMs: number): Promise<{ id: string; dueAt: number }> {
  const publishAt = new Date(Date.now() + inMs);
  const post = (await h.call(WS, 'POST', '/posts', { type: 'STATUS', profileIds: ['p1'], captions: [{ plainText: 'on time' }], publishAt: publishAt.toISOString() })).body;
  expect((await h.call(WS, 'PATCH', `/posts/${post.id}/stage/schedule`)).status).toBe(200);
  return { id: post.id, dueAt: publishAt.getTime() };
}

const task = (postId: string) => db.collection('publish_tasks').findOne({ _id: `${postId}:1` as never });

/** Polls the task until it is CLAIMED; returns when that was seen. */
async function claimedAt(postId: string, deadline: number): Promise<number> {
  while (Date.now() < deadline) {
    if ((await task(postId))?.['state'] === 'CLAIMED') return Date.now();
    await sleep(50);
  }
  throw new Error(`task of ${postId} never claimed`);
}

describe('dispatch timing', () => {
  it('claims a task before it is due and sends its job at the due time, not before', async () => {
    const { id, dueAt } = await scheduled(4000);

    const claimed = await claimedAt(id, dueAt + 5000);
    while (!jobs.some((j) => j.postId === id) && Date.now() < dueAt + 10_000) await sleep(50);

    const job = jobs.find((j) => j.postId === id);
    expect(claimed).toBeLessThan(dueAt); // claimed ahead
    expect(job?.receivedAt).toBeGreaterThanOrEqual(dueAt); // never early
    expect((await task(id))?.['state']).toBe('DISPATCHED');
  });

  it('sends nothing for a post unscheduled after its task was claimed ahead', async () => {
    const { id, dueAt } = await scheduled(4000);
    await claimedAt(id, dueAt);

    const res = await h.call(WS, 'PATCH', `/posts/${id}/stage/unschedule`);
    expect(res.status).toBe(200);
    expect(res.body.stage).toBe('DRAFT');
    await sleep(dueAt + 2000 - Date.now());

    expect(jobs.filter((j) => j.postId === id)).toEqual([]);
    expect((await task(id))?.['state']).toBe('CANCELLED');
  });

  it('hands tasks claimed ahead back when the service stops, so another replica sends them on time', async () => {
    const { id, dueAt } = await scheduled(5000);
    await claimedAt(id, dueAt);

    serviceStopped = true;
    await h.service.destroy();

    expect(await task(id)).toMatchObject({ state: 'WAITING', claimToken: null, leaseUntil: null });
    expect(new Date((await task(id))!['dueAt']).getTime()).toBe(dueAt);
  });
});
