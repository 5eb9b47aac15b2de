import { closeMongo, connectMongo, type Connection } from '@social/mongo';
import { dropDatabases, testEnv } from '@social/testkit';
import { migrateLegacyPublishTasks } from '../src/data/legacy-publish-tasks';
import { PostRepository } from '../src/data/post.repository';
import type { PostRecord, PublishDispatch } from '../src/domain/posts/post.types';

// The posts publishing works on, against the real database: found whatever their age, claimed by
// exactly one dispatcher, and a claim that beats a change under way.
const env = testEnv();
let conn: Connection;
let repo: PostRepository;
let n = 0;
const HOUR = 3600_000;

beforeAll(async () => {
  conn = await connectMongo({ url: env['MONGO_URL']!, dbName: `${env['MONGO_DB_PREFIX']}posts` });
  repo = new PostRepository(conn, { firstLookBackMs: 5 * 60_000 });
});
afterAll(async () => {
  await closeMongo(conn);
  await dropDatabases(env['MONGO_URL']!, env['MONGO_DB_PREFIX']!);
});

function scheduledPost(dueAt: Date, dispatch: Partial<PublishDispatch> = {}): PostRecord {
  const now = new Date();
  return {
    id: `post-${++n}-${Math.random().toString(36).slice(2, 8)}`,
    workspaceId: 'w1',
    type: 'STATUS',
    stage: 'SCHEDULED',
    publishAt: dueAt,
    profileIds: ['p1'],
    profileNets: { p1: 'generalNet' },
    captions: [{ plainText: 'hello', firstComment: null, net: null }],
    medias: [],
    links: [],
    briefing: null,
    labelIds: [],
    networks: {},
    stageHistory: [],
    archivedFrom: null,
    revision: 1,
    plan: [{ profileId: 'p1', status: 'PENDING', revision: 1, networkPostId: null, reason: null }],
    dispatch: { state: 'WAITING', dueAt, requestId: 'req-1', checkAt: null, rounds: 0, ...dispatch },
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
}

describe('posts waiting to be dispatched', () => {
  it('are found however long ago they were due, even after the dispatcher looked past their minute', async () => {
    const post = scheduledPost(new Date(Date.now() - 30 * HOUR));
    await repo.insert(post);
    const later = new Date(Date.now() + 3 * 60_000);

    expect((await repo.waitingUntil(later, later)).map((d) => d.postId)).toContain(post.id);
    const evenLater = new Date(Date.now() + 10 * 60_000);
    expect((await repo.waitingUntil(evenLater, evenLater)).map((d) => d.postId)).toContain(post.id);
  });

  it('are claimed by exactly one of many concurrent dispatchers, with the request that planned them', async () => {
    const post = scheduledPost(new Date(Date.now() - 1000));
    await repo.insert(post);
    const [due] = (await repo.waitingUntil(new Date(), new Date())).filter((d) => d.postId === post.id);

    const claims = await Promise.all(
      Array.from({ length: 20 }, () => new PostRepository(conn).claimForDispatch(due!, new Date(Date.now() + HOUR))),
    );

    const won = claims.filter((c) => c !== null);
    expect(won).toHaveLength(1);
    expect(won[0]!.dispatch).toMatchObject({ state: 'DISPATCHED', requestId: 'req-1' });
    expect((await repo.waitingUntil(new Date(), new Date())).map((d) => d.postId)).not.toContain(post.id);
  });

  it('make a change read before the claim fail its compare-and-set', async () => {
    const post = scheduledPost(new Date(Date.now() - 1000));
    await repo.insert(post);
    const readByAnEdit = (await repo.get('w1', post.id))!;
    const [due] = (await repo.waitingUntil(new Date(), new Date())).filter((d) => d.postId === post.id);

    expect(await repo.claimForDispatch(due!, new Date(Date.now() + HOUR))).not.toBeNull();
    const edited = {
      ...readByAnEdit,
      captions: [{ plainText: 'edited', firstComment: null, net: null }],
      version: readByAnEdit.version + 1,
    };
    expect(await repo.replace(edited, readByAnEdit.version)).toBe(false);
  });

  it('are not claimed once a new revision replaced the listed one', async () => {
    const post = scheduledPost(new Date(Date.now() - 1000));
    await repo.insert(post);
    const [due] = (await repo.waitingUntil(new Date(), new Date())).filter((d) => d.postId === post.id);
    await repo.replace({ ...post, revision: 2, version: 2 }, 1);

    expect(await repo.claimForDispatch(due!, new Date())).toBeNull();
  });
});

describe('posts claimed in batches (one command of compare-and-sets)', () => {
  it('are each claimed by exactly one of several dispatchers claiming the same batch at once', async () => {
    const posts = Array.from({ length: 12 }, () => scheduledPost(new Date(Date.now() - 1000)));
    for (const p of posts) await repo.insert(p);
    const ids = new Set(posts.map((p) => p.id));
    // Each replica lists the posts itself, so each claims against the version it read.
    const replicas = Array.from({ length: 5 }, () => new PostRepository(conn, { firstLookBackMs: 5 * 60_000 }));
    const listed = await Promise.all(
      replicas.map(async (r) => (await r.waitingUntil(new Date(), new Date())).filter((d) => ids.has(d.postId))),
    );

    const claims = await Promise.all(replicas.map((r, i) => r.claimManyForDispatch(listed[i]!, new Date(Date.now() + HOUR))));

    const winners = new Map<string, number>();
    for (const c of claims.flat()) if (c) winners.set(c.id, (winners.get(c.id) ?? 0) + 1);
    expect([...winners.keys()].sort()).toEqual([...ids].sort());
    expect([...winners.values()].every((n) => n === 1)).toBe(true);
    for (const c of claims.flat()) if (c) expect(c.dispatch).toMatchObject({ state: 'DISPATCHED', requestId: 'req-1' });
    for (const p of posts) expect((await repo.get('w1', p.id))!.dispatch?.state).toBe('DISPATCHED');
  });

  it('claim a post changed since the scan on its own, with what it says now, and skip one re-planned', async () => {
    const [labelled, replanned, untouched] = Array.from({ length: 3 }, () => scheduledPost(new Date(Date.now() - 1000)));
    for (const p of [labelled, replanned, untouched]) await repo.insert(p!);
    const ids = new Set([labelled!.id, replanned!.id, untouched!.id]);
    const due = (await repo.waitingUntil(new Date(), new Date())).filter((d) => ids.has(d.postId));
    // After the scan: a change that keeps the revision (new version), and a new revision.
    await repo.replace({ ...labelled!, labelIds: ['l1'], version: 2 }, 1);
    await repo.replace({ ...replanned!, revision: 2, version: 2 }, 1);

    const claimed = await repo.claimManyForDispatch(due, new Date(Date.now() + HOUR));

    const byId = new Map(due.map((d, i) => [d.postId, claimed[i]]));
    expect(byId.get(labelled!.id)).toMatchObject({ labelIds: ['l1'], version: 3, dispatch: { state: 'DISPATCHED' } });
    expect(byId.get(replanned!.id)).toBeNull();
    expect(byId.get(untouched!.id)).toMatchObject({ version: 2, dispatch: { state: 'DISPATCHED' } });
    expect((await repo.get('w1', replanned!.id))!.dispatch?.state).toBe('WAITING');
  });

  it('apply concurrent changes of the same posts (results arriving together) each exactly once', async () => {
    const posts = Array.from({ length: 6 }, () => scheduledPost(new Date(Date.now() - 1000)));
    for (const p of posts) await repo.insert({ ...p, plan: ['a', 'b', 'c', 'd'].map((profileId) => ({ ...p.plan[0]!, profileId })) });
    const others = [new PostRepository(conn), new PostRepository(conn)];

    // Every profile of every post settled at once, through three repositories (three replicas).
    await Promise.all(
      posts.flatMap((p) =>
        ['a', 'b', 'c', 'd'].map((profileId, k) =>
          [repo, ...others][k % 3]!.modify('w1', p.id, (post) => {
            const i = post.plan.findIndex((e) => e.profileId === profileId);
            if (post.plan[i]!.status !== 'PENDING') return null;
            const plan = [...post.plan];
            plan[i] = { ...plan[i]!, status: 'PUBLISHED' };
            return { ...post, plan, version: post.version + 1 };
          }),
        ),
      ),
    );

    for (const p of posts) {
      const after = (await repo.get('w1', p.id))!;
      expect(after.plan.map((e) => e.status)).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED', 'PUBLISHED']);
      expect(after.version).toBe(5); // four changes, each written once
    }
  });
});

describe('dispatched posts the watchdog checks', () => {
  it('are found once their check time passed, however long ago, until a check moves them on', async () => {
    const checkAt = new Date(Date.now() - 20 * HOUR);
    const post = scheduledPost(new Date(Date.now() - 21 * HOUR), { state: 'DISPATCHED', checkAt });
    await repo.insert(post);

    expect((await repo.dueForCheck(new Date())).map((p) => p.id)).toContain(post.id);
    expect((await repo.dueForCheck(new Date())).map((p) => p.id)).toContain(post.id); // a failed check leaves it due
    await repo.modify('w1', post.id, (p) => ({
      ...p,
      dispatch: { ...p.dispatch!, checkAt: new Date(Date.now() + HOUR) },
      version: p.version + 1,
    }));
    expect((await repo.dueForCheck(new Date())).map((p) => p.id)).not.toContain(post.id);
  });
});

describe('upgrading from releases that kept dispatch tasks apart', () => {
  it('moves each open task into its post and drops the old collection', async () => {
    const waiting = scheduledPost(new Date(Date.now() + HOUR));
    const dispatched = scheduledPost(new Date(Date.now() - HOUR));
    const stale = scheduledPost(new Date(Date.now() + HOUR));
    for (const p of [waiting, dispatched, stale]) await repo.insert({ ...p, dispatch: null });
    await conn.db!.collection('publish_tasks').insertMany([
      {
        _id: `${waiting.id}:1`,
        workspaceId: 'w1',
        postId: waiting.id,
        revision: 1,
        dueAt: waiting.publishAt,
        state: 'WAITING',
        requestId: 'req-w',
      },
      {
        _id: `${dispatched.id}:1`,
        workspaceId: 'w1',
        postId: dispatched.id,
        revision: 1,
        dueAt: dispatched.publishAt,
        state: 'DISPATCHED',
        requestId: null,
      },
      { _id: `${stale.id}:0`, workspaceId: 'w1', postId: stale.id, revision: 0, dueAt: stale.publishAt, state: 'WAITING' },
    ] as never[]);

    expect(await migrateLegacyPublishTasks(conn, repo)).toBe(2);

    expect((await repo.get('w1', waiting.id))!.dispatch).toMatchObject({ state: 'WAITING', requestId: 'req-w' });
    expect((await repo.get('w1', dispatched.id))!.dispatch).toMatchObject({ state: 'DISPATCHED' });
    expect((await repo.get('w1', stale.id))!.dispatch).toBeNull();
    expect(await conn.db!.listCollections({ name: 'publish_tasks' }).toArray()).toEqual([]);
    expect(await migrateLegacyPublishTasks(conn, repo)).toBe(0);
  });
});
