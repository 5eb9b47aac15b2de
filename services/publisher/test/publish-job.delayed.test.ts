import { randomBytes } from 'node:crypto';
import type { PublishCompleted, PublishRequested } from '@social/contracts';
import { closeMongo, connectMongo, syncIndexes, type Connection } from '@social/mongo';
import { NetworkError, type NetworkAdapter, type PublishInput } from '@social/networks';
import { LedgerRepository } from '../src/data/ledger.repository';
import { ledgerModel, networkPostClaimModel } from '../src/data/ledger.model';
import { PublishJob } from '../src/domain/publish-job.use-case';

// The use case with the real ledger (FerretDB) and a clock of its own: when a delayed job comes
// back is decided by the broker's delay queues to the millisecond, which a test cannot steer, so
// the job's arrival time is set here. The network is a stub that answers what the test says.
const MONGO_URL = process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017/';
let conn: Connection;

beforeAll(async () => {
  conn = await connectMongo({ url: MONGO_URL, dbName: `t${randomBytes(4).toString('hex')}_publisher_delayed` });
  ledgerModel(conn);
  networkPostClaimModel(conn);
  await syncIndexes(conn);
});

afterAll(async () => {
  await conn?.dropDatabase();
  await closeMongo(conn);
});

/** How long (on the job's clock) the ledger's recording writes take to answer; 0 unless set. */
interface SlowLedger {
  beginMs?: number;
  callingNowMs?: number;
}

function setup(slow: SlowLedger = {}) {
  let now = Date.parse('2026-06-01T10:00:00.000Z');
  const ledger = new LedgerRepository(conn);
  const begin = ledger.begin.bind(ledger);
  const callingNow = ledger.callingNow.bind(ledger);
  ledger.begin = async (start) => {
    const r = await begin(start);
    now += slow.beginMs ?? 0;
    return r;
  };
  ledger.callingNow = async (entry) => {
    const r = await callingNow(entry);
    now += slow.callingNowMs ?? 0;
    return r;
  };
  const calls: PublishInput[] = [];
  const answers: (() => { networkPostId: string; publishedAt: string })[] = [];
  const network = {
    async publish(input: PublishInput) {
      calls.push(input);
      return answers.shift()!();
    },
  } as unknown as NetworkAdapter;
  const results: PublishCompleted[] = [];
  const later: PublishRequested[] = [];
  const job = new PublishJob({
    ledger,
    posts: { get: () => Promise.reject(new Error('not used')) },
    media: { batchGet: async () => new Map() },
    credentials: { get: async () => ({ net: 'generalNet', accountId: 'gn-own-1', accessToken: 't' }), forget: () => undefined },
    network,
    outbox: {
      result: async (r) => void results.push(r),
      later: async (j) => void later.push(j),
      authRevoked: async () => undefined,
    },
    maxAttempts: 6,
    retry: { baseMs: 1000, maxMs: 30000, retryAfterMaxMs: 900000 },
    settle: { settleMs: () => 40000 },
    maxLatenessMs: 3600000,
    now: () => new Date(now),
  });
  return {
    job,
    calls,
    answers,
    results,
    later,
    at: (t: number) => (now = t),
    get now() {
      return now;
    },
  };
}

const meta = { workspaceId: 'w1', correlationId: 'c1' };

/** A STATUS post's first job, due now on the test's clock. */
const jobFor = (t: ReturnType<typeof setup>, postId: string): PublishRequested => ({
  postId,
  profileId: 'prof-1',
  revision: 1,
  net: 'generalNet',
  dueAt: new Date(t.now).toISOString(),
  content: { type: 'STATUS', caption: 'hello', firstComment: null, mediaLibIds: [], links: [], settings: {} },
});

describe('a delayed retry', () => {
  it('runs when the delay queues bring it back a few milliseconds before its time (the job accepts it), rather than being dropped', async () => {
    const t = setup();
    const postId = `early-${randomBytes(3).toString('hex')}`;
    const first = jobFor(t, postId);
    t.answers.push(() => {
      throw new NetworkError('RATE_LIMITED', 'slow down', { net: 'generalNet', operation: 'publish', retryAfterMs: 60000 });
    });

    await t.job.handle(first, meta);

    expect(t.later).toHaveLength(1);
    const retry = t.later[0]!;
    expect(retry).toMatchObject({ attempt: 2, mode: 'publish' });
    // Back from the delay queues 20 ms before its time: close enough for the job to run it.
    t.at(Date.parse(retry.notBefore!) - 20);
    t.answers.push(() => ({ networkPostId: 'np-1', publishedAt: new Date(t.now).toISOString() }));

    await t.job.handle(retry, meta);

    // It is the only job that will ever try again: it must not vanish.
    expect(t.calls).toHaveLength(2);
    expect(t.results.at(-1)).toMatchObject({ status: 'PUBLISHED', networkPostId: 'np-1', attempts: 2 });
  });
});

describe('an attempt whose recording answered late', () => {
  const entryOf = (postId: string) => ledgerModel(conn).findOne({ postId }).lean();

  it('records the call time again before calling, so a reconcile counts its settle time from the real call', async () => {
    const t = setup({ beginMs: 3000 });
    const postId = `late-${randomBytes(3).toString('hex')}`;
    t.answers.push(() => ({ networkPostId: 'np-late', publishedAt: new Date(t.now).toISOString() }));

    await t.job.handle(jobFor(t, postId), meta);

    expect(t.calls).toHaveLength(1);
    const entry = await entryOf(postId);
    expect(entry).toMatchObject({ state: 'PUBLISHED' });
    expect(entry!.calledUntil).toBeInstanceOf(Date);
    expect(entry!.calledUntil!.getTime()).toBeGreaterThanOrEqual(entry!.calledAt!.getTime());
  });

  it('calls at once, with no second write, when the recording answered in time', async () => {
    const t = setup();
    const postId = `prompt-${randomBytes(3).toString('hex')}`;
    t.answers.push(() => ({ networkPostId: 'np-prompt', publishedAt: new Date(t.now).toISOString() }));

    await t.job.handle(jobFor(t, postId), meta);

    expect(t.calls).toHaveLength(1);
    expect(await entryOf(postId)).toMatchObject({ state: 'PUBLISHED', calledUntil: null });
  });

  it('sends nothing when recording the call time again is late too: the attempt stays CALLING, to be reconciled', async () => {
    const t = setup({ beginMs: 3000, callingNowMs: 3000 });
    const postId = `later-${randomBytes(3).toString('hex')}`;

    await expect(t.job.handle(jobFor(t, postId), meta)).rejects.toThrow(/too late/);

    expect(t.calls).toHaveLength(0);
    expect(await entryOf(postId)).toMatchObject({ state: 'CALLING' });
  });
});
