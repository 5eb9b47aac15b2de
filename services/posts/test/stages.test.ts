import mongoose from 'mongoose';
import { postsDbName } from '../src/config';
import { startHarness, paths, type Harness } from './support/harness';

let h: Harness;
let db: mongoose.Connection;
const WS = 'ws-stages';
const FUTURE = '2031-06-01T10:00:00.000Z';

beforeAll(async () => {
  h = await startHarness();
  h.profiles.add(WS, { id: 'p1', net: 'generalNet' });
  h.profiles.add(WS, { id: 'p2', net: 'conversationNet' });
  db = await mongoose
    .createConnection(h.env['MONGO_URL']!, { dbName: postsDbName({ mongoDbPrefix: h.env['MONGO_DB_PREFIX']! }) })
    .asPromise();
});
afterAll(async () => {
  await db?.close();
  await h?.stop();
});

const create = async (publishAt: string | null = FUTURE) =>
  (
    await h.call(WS, 'POST', '/posts', {
      type: 'STATUS',
      profileIds: ['p1', 'p2'],
      captions: [{ plainText: 'ok' }],
      ...(publishAt ? { publishAt } : {}),
    })
  ).body;
const op = (id: string, name: string, body?: unknown) => h.call(WS, 'PATCH', `/posts/${id}/stage/${name}`, body);

/** Publishing results are another issue's; the tests write them as the result consumer will. */
const setPublished = async (id: string, stage: 'PUBLISHED' | 'PUBLISHED_FAILED') => {
  const plan = [
    { profileId: 'p1', status: 'PUBLISHED', revision: 1, networkPostId: 'n1', reason: null },
    {
      profileId: 'p2',
      status: stage === 'PUBLISHED' ? 'PUBLISHED' : 'FAILED',
      revision: 1,
      networkPostId: null,
      reason: stage === 'PUBLISHED' ? null : 'rejected',
    },
  ];
  await db
    .collection('posts')
    .updateOne(
      { _id: id as never },
      { $set: { stage, plan, revision: 1, publishAt: new Date('2020-01-01T00:00:00Z'), sortAt: new Date('2020-01-01T00:00:00Z') } },
    );
};

/** A post in the given stage, reached through the API where the API can reach it. */
async function postIn(stage: string): Promise<string> {
  const paths: Record<string, string[]> = {
    IDEA: [],
    DRAFT: [],
    TEAM_REVIEW: ['submitTeamReview'],
    TEAM_REVISION: ['submitTeamReview', 'rejectTeam'],
    TEAM_APPROVED: ['submitTeamReview', 'approveTeam'],
    CLIENT_REVIEW: ['submitClientReview'],
    CLIENT_REVISION: ['submitClientReview', 'rejectClient'],
    CLIENT_APPROVED: ['submitClientReview', 'approveClient'],
    SCHEDULED: ['schedule'],
    ARCHIVE: ['archive'],
    PUBLISHED: [],
    PUBLISHED_FAILED: [],
  };
  const post = await create(stage === 'IDEA' ? null : FUTURE);
  for (const o of paths[stage]!) expect((await op(post.id, o)).status).toBe(200);
  if (stage === 'PUBLISHED' || stage === 'PUBLISHED_FAILED') await setPublished(post.id, stage);
  // A failed post gets a new time before it is scheduled again (its old one is in the past).
  if (stage === 'PUBLISHED_FAILED') expect((await h.call(WS, 'PUT', `/posts/${post.id}`, { publishAt: FUTURE })).body.stage).toBe(stage);
  return post.id;
}

const STAGES = [
  'IDEA',
  'DRAFT',
  'TEAM_REVIEW',
  'TEAM_REVISION',
  'TEAM_APPROVED',
  'CLIENT_REVIEW',
  'CLIENT_REVISION',
  'CLIENT_APPROVED',
  'SCHEDULED',
  'PUBLISHED',
  'PUBLISHED_FAILED',
  'ARCHIVE',
];
const X = 409;
// Rows: operations; columns: STAGES in the order above. A stage is where the post lands, X is 409.
const MATRIX: Record<string, (string | number)[]> = {
  //                  IDEA           DRAFT          TEAM_REVIEW      TEAM_REVISION  TEAM_APPROVED    CLIENT_REVIEW    CLIENT_REVISION  CLIENT_APPROVED  SCHEDULED  PUBLISHED  PUBLISHED_FAILED ARCHIVE
  submitTeamReview: ['TEAM_REVIEW', 'TEAM_REVIEW', X, 'TEAM_REVIEW', X, X, 'TEAM_REVIEW', X, X, X, X, X],
  approveTeam: [X, X, 'TEAM_APPROVED', X, X, X, X, X, X, X, X, X],
  rejectTeam: [X, X, 'TEAM_REVISION', X, X, X, X, X, X, X, X, X],
  submitClientReview: ['CLIENT_REVIEW', 'CLIENT_REVIEW', X, X, 'CLIENT_REVIEW', X, 'CLIENT_REVIEW', X, X, X, X, X],
  approveClient: [X, X, X, X, X, 'CLIENT_APPROVED', X, X, X, X, X, X],
  rejectClient: [X, X, X, X, X, 'CLIENT_REVISION', X, X, X, X, X, X],
  schedule: [X, 'SCHEDULED', X, X, 'SCHEDULED', X, X, 'SCHEDULED', X, X, 'SCHEDULED', X],
  publishNow: ['SCHEDULED', 'SCHEDULED', X, X, 'SCHEDULED', X, X, 'SCHEDULED', 'SCHEDULED', X, 'SCHEDULED', X],
  unschedule: [X, X, X, X, X, X, X, X, 'DRAFT', X, X, X],
  archive: ['ARCHIVE', 'ARCHIVE', 'ARCHIVE', 'ARCHIVE', 'ARCHIVE', 'ARCHIVE', 'ARCHIVE', 'ARCHIVE', X, 'ARCHIVE', 'ARCHIVE', X],
  restore: [X, X, X, X, X, X, X, X, X, X, X, 'DRAFT'],
};

describe('the transition matrix: every operation from every stage', () => {
  const cases = Object.entries(MATRIX).flatMap(([o, row]) => STAGES.map((from, i) => [o, from, row[i]!] as const));
  it.each(cases)('%s from %s → %s', async (o, from, expected) => {
    const id = await postIn(from);
    const before = (await h.call(WS, 'GET', `/posts/${id}`)).body;
    expect(before.stage).toBe(from);
    const res = await op(id, o);
    if (expected === X) {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('INVALID_TRANSITION');
      expect((await h.call(WS, 'GET', `/posts/${id}`)).body).toEqual(before);
    } else {
      expect(res.status).toBe(200);
      expect(res.body.stage).toBe(expected);
      expect(res.body.stageHistory.at(-1)).toMatchObject({ operation: o, from, to: expected, comment: null });
      expect((await h.call(WS, 'GET', `/posts/${id}`)).body).toEqual(res.body);
    }
  });
});

describe('stage operations', () => {
  it('keeps the optional comment in the stage history, with when and which operation', async () => {
    const { id } = await create();
    await op(id, 'submitTeamReview', { comment: 'please check the tone' });
    const res = await op(id, 'rejectTeam', { comment: 'too loud' });
    expect(res.body.stageHistory.map((e: any) => [e.operation, e.comment])).toEqual([
      ['create', null],
      ['submitTeamReview', 'please check the tone'],
      ['rejectTeam', 'too loud'],
    ]);
    expect(Date.parse(res.body.stageHistory[2].at)).toBeGreaterThan(Date.now() - 10000);
  });

  it('schedule records the plan: every profile PENDING', async () => {
    const { id } = await create();
    const res = await op(id, 'schedule');
    expect(res.body.profiles.map((p: any) => p.publishStatus)).toEqual(['PENDING', 'PENDING']);
    expect(res.body.publishAt).toBe(FUTURE);
  });

  it('publishNow sets publishAt to now, SCHEDULED, profiles PENDING; the post is then protected', async () => {
    const { id } = await create(null);
    const before = Date.now();
    const res = await op(id, 'publishNow');
    expect(res.status).toBe(200);
    expect(res.body.stage).toBe('SCHEDULED');
    expect(Date.parse(res.body.publishAt)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(res.body.publishAt)).toBeLessThanOrEqual(Date.now());
    expect(res.body.profiles.map((p: any) => p.publishStatus)).toEqual(['PENDING', 'PENDING']);
    for (const attempt of [
      await op(id, 'unschedule'),
      await op(id, 'publishNow'),
      await h.call(WS, 'PUT', `/posts/${id}`, { captions: [{ plainText: 'late change' }] }),
      await h.call(WS, 'DELETE', `/posts/${id}`),
    ]) {
      expect(attempt.status).toBe(409);
      expect(attempt.body.error.code).toBe('PROTECTED_STAGE');
    }
    expect((await h.call(WS, 'GET', `/posts/${id}`)).body.captions[0].plainText).toBe('ok');
  });

  it('unschedule cancels the pending profiles and goes back to DRAFT', async () => {
    const { id } = await create();
    await op(id, 'schedule');
    const res = await op(id, 'unschedule', { comment: 'wrong day' });
    expect(res.body).toMatchObject({ stage: 'DRAFT', publishAt: FUTURE });
    expect(res.body.profiles.map((p: any) => p.publishStatus)).toEqual(['CANCELLED', 'CANCELLED']);
  });

  it('schedule validates like GET /validate: a problem answers 400 and the stage stays', async () => {
    h.profiles.add(WS, { id: 'p-down', net: 'generalNet', publishReady: false });
    const { id } = (
      await h.call(WS, 'POST', '/posts', { type: 'STATUS', profileIds: ['p-down'], captions: [{ plainText: 'x' }], publishAt: FUTURE })
    ).body;
    const validate = await h.call(WS, 'GET', `/posts/${id}/validate`);
    const schedule = await op(id, 'schedule');
    expect(schedule.status).toBe(400);
    expect(schedule.body.error.details).toEqual(validate.body.error.details);
    expect((await op(id, 'publishNow')).body.error.details).toEqual(validate.body.error.details);
    expect((await h.call(WS, 'GET', `/posts/${id}`)).body.stage).toBe('DRAFT');
  });

  it('schedule refuses a publishAt in the past (publishNow is the way to publish at once)', async () => {
    const { id } = await create('2020-01-01T00:00:00.000Z');
    const res = await op(id, 'schedule');
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual(['/publishAt']);
  });

  it('publishing a PUBLISHED_FAILED post again plans only the profiles that did not publish', async () => {
    const id = await postIn('PUBLISHED_FAILED');
    const res = await op(id, 'publishNow');
    expect(res.body.profiles.map((p: any) => [p.id, p.publishStatus])).toEqual([
      ['p1', 'PUBLISHED'],
      ['p2', 'PENDING'],
    ]);
  });

  it('restore returns to the stage the post was archived from', async () => {
    const id = await postIn('PUBLISHED');
    await op(id, 'archive');
    expect((await op(id, 'restore')).body.stage).toBe('PUBLISHED');
    const idea = await postIn('IDEA');
    await op(idea, 'archive');
    expect((await op(idea, 'restore')).body.stage).toBe('IDEA');
  });

  it('rejects an unknown operation with 400 and a bad comment with its path', async () => {
    const { id } = await create();
    const unknown = await op(id, 'publishLater');
    expect(unknown.status).toBe(400);
    expect(paths(unknown.body)).toEqual(['/path/op']);
    const bad = await op(id, 'archive', { comment: 5 });
    expect(bad.status).toBe(400);
    expect(paths(bad.body)).toEqual(['/comment']);
  });

  it('answers 404 for an unknown post', async () => {
    expect((await op('000000000000000000000000', 'archive')).status).toBe(404);
  });
});
