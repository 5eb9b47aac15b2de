import { closeMongo, connectMongo, type Connection } from '@social/mongo';
import { eventually, sleep } from '@social/testkit';
import { PublisherHarness } from './support/harness';

// An upgrade from a release that kept the exactly-once ledger in `publish_attempts` (one attempt per
// (post, profile, revision), `_id` `${postId}:${profileId}:${revision}`, which was also the
// idempotency key it sent). The old release's work is laid down as it left it: its attempts in the
// publisher's database, and the posts its calls created on the network, under its keys. Then the
// new workers start (two replicas at once, on the quiet old ledger) and the test plays the posts
// service: its watchdog's questions, and jobs the old release left in the queue.
// generalNet keeps no idempotency keys; professionalNet keeps them for 24 h.
let h: PublisherHarness;
let db: Connection;

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

interface OldAttempt {
  postId: string;
  profileId: string;
  revision?: number;
  net: string;
  state: 'STARTED' | 'PUBLISHED' | 'FAILED' | 'CANCELLED';
  networkPostId?: string;
  publishedAt?: Date;
  error?: { code: string; message: string };
}

const oldAttempt = (a: OldAttempt) => {
  const revision = a.revision ?? 1;
  return {
    _id: `${a.postId}:${a.profileId}:${revision}`,
    workspaceId: 'w1',
    postId: a.postId,
    profileId: a.profileId,
    revision,
    net: a.net,
    state: a.state,
    networkPostId: a.networkPostId ?? null,
    publishedAt: a.publishedAt ?? null,
    error: a.error ?? null,
    attempts: 1,
    startedAt: minutesAgo(20),
    updatedAt: minutesAgo(19),
  };
};

/** A post the old release's call created on the network, under the key it sent. */
async function publishedByOldRelease(net: string, accountId: string, key: string, caption: string) {
  const { accessToken } = await h.sandbox('POST', `/sandbox/${net}/accounts/${accountId}/tokens`);
  const res = await fetch(`${h.sandboxUrl}/sandbox/${net}/accounts/${accountId}/posts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}`, 'idempotency-key': key },
    body: JSON.stringify({ type: 'STATUS', caption }),
  });
  if (res.status !== 201) throw new Error(`publish ${key}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { networkPostId: string; publishedAt: string };
}

const rejected = { code: 'NETWORK_REJECTED', message: 'The network refused the post.' };
const posts: Record<string, { networkPostId: string; publishedAt: string }> = {};

beforeAll(async () => {
  h = await PublisherHarness.start({
    NETWORK_TIMEOUT_MS: '1000',
    SANDBOX_MAX_PROCESSING_MS: '1500',
    PUBLISHER_OUTCOME_SETTLE_MS: '2500',
    PUBLISHER_MAX_ATTEMPTS: '8',
  });
  await h.connect('prof-gn', 'generalNet', 'gn-own-1');
  await h.connect('prof-pro', 'professionalNet', 'pro-own-1');

  // The old release ran; its workers are stopped before the new ones start.
  await h.system.stopProcess('publisher');
  db = await connectMongo({ url: h.system.env['MONGO_URL']!, dbName: `${h.system.env['MONGO_DB_PREFIX']}publisher` });
  const caption = (postId: string) => `caption of ${postId}`;
  posts['old-pub'] = await publishedByOldRelease('generalNet', 'gn-own-1', 'old-pub:prof-gn:1', caption('old-pub'));
  posts['started-pro'] = await publishedByOldRelease('professionalNet', 'pro-own-1', 'started-pro:prof-pro:1', caption('started-pro'));
  posts['started-gn'] = await publishedByOldRelease('generalNet', 'gn-own-1', 'started-gn:prof-gn:1', caption('started-gn'));
  posts['two-revs'] = await publishedByOldRelease('generalNet', 'gn-own-1', 'two-revs:prof-gn:1', caption('two-revs'));
  await db.collection<ReturnType<typeof oldAttempt>>('publish_attempts').insertMany([
    oldAttempt({ postId: 'old-pub', profileId: 'prof-gn', net: 'generalNet', state: 'PUBLISHED', ...dated(posts['old-pub']) }),
    oldAttempt({ postId: 'started-pro', profileId: 'prof-pro', net: 'professionalNet', state: 'STARTED' }),
    oldAttempt({ postId: 'started-pro-absent', profileId: 'prof-pro', net: 'professionalNet', state: 'STARTED' }),
    oldAttempt({ postId: 'started-gn', profileId: 'prof-gn', net: 'generalNet', state: 'STARTED' }),
    // A call in flight when the old workers stopped that the network never stored: nobody can tell.
    oldAttempt({ postId: 'started-gn-absent', profileId: 'prof-gn', net: 'generalNet', state: 'STARTED' }),
    oldAttempt({ postId: 'old-failed', profileId: 'prof-gn', net: 'generalNet', state: 'FAILED', error: rejected }),
    // Revision 1 published; revision 2 of the same (post, profile) was started, then the upgrade.
    oldAttempt({ postId: 'two-revs', profileId: 'prof-gn', net: 'generalNet', state: 'PUBLISHED', ...dated(posts['two-revs']) }),
    oldAttempt({ postId: 'two-revs', profileId: 'prof-gn', revision: 2, net: 'generalNet', state: 'STARTED' }),
  ]);

  // The new release: two replicas start at once on the old ledger.
  await Promise.all([h.system.startProcess('publisher'), h.system.startReplica('publisher', 'publisher-2')]);
}, 180000);

afterAll(async () => {
  await closeMongo(db);
  await h?.stop();
}, 60000);

function dated(p: { networkPostId: string; publishedAt: string } | undefined) {
  return { networkPostId: p!.networkPostId, publishedAt: new Date(p!.publishedAt) };
}

const outcome = (postId: string, timeoutMs = 20000) => eventually(async () => h.outcomesFor(postId)[0], timeoutMs, 100);

describe('upgrading from the publish_attempts ledger', () => {
  it('moves the old ledger into publish_ledger and drops it', async () => {
    expect(await db.db!.listCollections({ name: 'publish_attempts' }).toArray()).toEqual([]);
    const entries = await db.collection('publish_ledger').find({}).sort({ _id: 1 }).toArray();
    expect(entries.map((e) => [e['_id'], e['state']])).toEqual([
      ['old-failed:prof-gn', 'NOT_PUBLISHED'],
      ['old-pub:prof-gn', 'PUBLISHED'],
      ['started-gn-absent:prof-gn', 'CALLING'],
      ['started-gn:prof-gn', 'CALLING'],
      ['started-pro-absent:prof-pro', 'CALLING'],
      ['started-pro:prof-pro', 'CALLING'],
      ['two-revs:prof-gn', 'PUBLISHED'],
    ]);
  });

  it('reports a post the old release PUBLISHED with its network post, and publishes it again neither for the watchdog nor for a job left in the queue', async () => {
    const job = h.job('old-pub', 'prof-gn', 'generalNet');
    await h.reconcile(job);
    await h.dispatch(job);

    await eventually(async () => h.outcomesFor('old-pub').length === 2, 20000);
    expect(h.outcomesFor('old-pub').map((r) => [r.status, r.networkPostId])).toEqual([
      ['PUBLISHED', posts['old-pub']!.networkPostId],
      ['PUBLISHED', posts['old-pub']!.networkPostId],
    ]);
    expect(await h.createdUnderAnyKey('old-pub', 'prof-gn')).toBe(1);
  });

  it('asks a network that keeps keys about an attempt STARTED by the key the old release sent: its post is reported PUBLISHED; absent, it is published once', async () => {
    await h.reconcile(h.job('started-pro', 'prof-pro', 'professionalNet'));
    await h.reconcile(h.job('started-pro-absent', 'prof-pro', 'professionalNet'));

    expect(await outcome('started-pro')).toMatchObject({ status: 'PUBLISHED', networkPostId: posts['started-pro']!.networkPostId });
    // Not under its old key once the old calls can no longer land (within the key window): a new attempt.
    expect(await outcome('started-pro-absent')).toMatchObject({ status: 'PUBLISHED' });
    await sleep(1000);
    expect(await h.createdUnderAnyKey('started-pro', 'prof-pro')).toBe(1);
    expect(await h.createdUnderAnyKey('started-pro-absent', 'prof-pro')).toBe(1);
  });

  it('keeps an attempt STARTED on a network without keys unknown, whether or not the network holds its post: never FAILED, never published again', async () => {
    for (const postId of ['started-gn', 'started-gn-absent']) {
      const job = h.job(postId, 'prof-gn', 'generalNet');
      await h.reconcile(job, 1);
      await h.dispatch(job); // a job the old release left in the queue
    }
    for (const postId of ['started-gn', 'started-gn-absent']) {
      await eventually(async () => h.resultsFor(postId).some((r) => r.status === 'UNKNOWN'), 20000);
    }
    await sleep(6000); // well past the settle time (2.5 s), the watchdog asks again
    for (const postId of ['started-gn', 'started-gn-absent']) await h.reconcile(h.job(postId, 'prof-gn', 'generalNet'), 2);
    await sleep(2000);

    for (const postId of ['started-gn', 'started-gn-absent']) {
      expect(h.outcomesFor(postId)).toEqual([]);
      expect(h.resultsFor(postId)[0]).toMatchObject({
        status: 'UNKNOWN',
        error: { code: 'PUBLISH_OUTCOME_UNKNOWN', message: expect.stringContaining(`${postId}:prof-gn:1`) },
      });
    }
    expect(await h.createdUnderAnyKey('started-gn', 'prof-gn')).toBe(1);
    expect(await h.createdUnderAnyKey('started-gn-absent', 'prof-gn')).toBe(0);
  });

  it('reports an attempt the old release FAILED with its reason and publishes nothing; a new revision publishes once', async () => {
    await h.reconcile(h.job('old-failed', 'prof-gn', 'generalNet'));
    await h.dispatch(h.job('old-failed', 'prof-gn', 'generalNet'));
    await eventually(async () => h.outcomesFor('old-failed').length === 2, 20000);

    expect(h.outcomesFor('old-failed').map((r) => [r.revision, r.status, r.error?.code])).toEqual([
      [1, 'FAILED', rejected.code],
      [1, 'FAILED', rejected.code],
    ]);
    expect(await h.createdUnderAnyKey('old-failed', 'prof-gn')).toBe(0);

    await h.dispatch(h.job('old-failed', 'prof-gn', 'generalNet', { revision: 2 })); // PATCH retry
    await eventually(async () => h.outcomesFor('old-failed').length === 3, 20000);
    expect(h.outcomesFor('old-failed')[2]).toMatchObject({ revision: 2, status: 'PUBLISHED' });
    expect(await h.createdUnderAnyKey('old-failed', 'prof-gn')).toBe(1);
  });

  it('answers a later revision started by the old release with the post an earlier revision published', async () => {
    await h.reconcile(h.job('two-revs', 'prof-gn', 'generalNet', { revision: 2 }));

    expect(await outcome('two-revs')).toMatchObject({ revision: 2, status: 'PUBLISHED', networkPostId: posts['two-revs']!.networkPostId });
    await sleep(1000);
    expect(await h.createdUnderAnyKey('two-revs', 'prof-gn')).toBe(1);
  });
});
