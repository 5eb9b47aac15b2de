import { randomBytes } from 'node:crypto';
import { closeMongo, connectMongo, type Connection } from '@social/mongo';
import { migrateLegacyAttempts, type LegacyAttempt } from '../src/data/legacy-attempts';
import { ledgerModel, type LedgerDoc } from '../src/data/ledger.model';

// The upgrade from `publish_attempts` against the real server (FerretDB here): several replicas
// running it at once, an old ledger larger than one chunk, and entries this release already wrote.
const MONGO_URL = process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017/';
const dbName = `t${randomBytes(4).toString('hex')}_publisher`;
let conns: Connection[] = [];

const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000);

const attempt = (postId: string, revision: number, state: LegacyAttempt['state'], over: Partial<LegacyAttempt> = {}): LegacyAttempt => ({
  _id: `${postId}:prof-1:${revision}`,
  workspaceId: 'w1',
  postId,
  profileId: 'prof-1',
  revision,
  net: 'generalNet',
  state,
  networkPostId: state === 'PUBLISHED' ? `gn_${postId}_${revision}` : null,
  publishedAt: state === 'PUBLISHED' ? at(30) : null,
  error: state === 'FAILED' ? { code: 'NETWORK_REJECTED', message: 'refused' } : null,
  attempts: 1,
  startedAt: at(40),
  updatedAt: at(35),
  ...over,
});

/** An entry as this release writes it. */
const own = (postId: string, over: Partial<LedgerDoc>): LedgerDoc => ({
  _id: `${postId}:prof-1`,
  workspaceId: 'w1',
  postId,
  profileId: 'prof-1',
  net: 'generalNet',
  state: 'PUBLISHED',
  revision: 1,
  attemptId: 'own-attempt',
  attempts: 1,
  accountId: 'gn-own-1',
  calledAt: at(1),
  fingerprint: 'fp',
  idempotencyKeys: null,
  calledUntil: null,
  networkPostId: null,
  publishedAt: null,
  error: null,
  final: true,
  retryAt: null,
  updatedAt: at(1),
  ...over,
});

beforeAll(async () => {
  conns = await Promise.all([1, 2, 3].map(() => connectMongo({ url: MONGO_URL, dbName })));
});

afterAll(async () => {
  await conns[0]?.dropDatabase();
  for (const c of conns) await closeMongo(c);
});

describe('the upgrade from publish_attempts', () => {
  it('merges every old attempt exactly once when three replicas run it at once, keeps what is stronger, then is a no-op', async () => {
    const db = conns[0]!;
    const old: LegacyAttempt[] = [
      // One (post, profile) whose attempts lie further apart than a chunk (500).
      attempt('split', 1, 'STARTED'),
      ...Array.from({ length: 1200 }, (_, i) => attempt(`bulk-${i}`, 1, i % 3 === 0 ? 'FAILED' : 'PUBLISHED')),
      attempt('split', 2, 'PUBLISHED'),
      attempt('started', 1, 'STARTED'),
      // Entries this release already wrote for the same (post, profile).
      attempt('kept', 1, 'FAILED'),
      attempt('upgraded', 1, 'STARTED'),
    ];
    await db.collection<LegacyAttempt>('publish_attempts').insertMany(old);
    const ledger = ledgerModel(db);
    await ledger.init();
    await db
      .collection<LedgerDoc>('publish_ledger')
      .insertMany([
        own('kept', { state: 'PUBLISHED', networkPostId: 'gn_own', publishedAt: at(1) }),
        own('upgraded', { state: 'NOT_PUBLISHED', final: false, retryAt: at(-1), error: { code: 'NETWORK_TRANSIENT', message: '' } }),
      ]);

    const merged = await Promise.all(conns.map((c) => migrateLegacyAttempts(c)));

    // Each old attempt was merged by exactly one replica.
    expect(merged.reduce((a, b) => a + b, 0)).toBe(old.length);
    expect(await db.db!.listCollections({ name: 'publish_attempts' }).toArray()).toEqual([]);
    const entries = new Map((await ledger.find({}).lean<LedgerDoc[]>()).map((e) => [e._id, e]));
    expect(entries.size).toBe(1200 + 4);
    for (const e of entries.values()) {
      const from = e.migratedFrom ?? [];
      expect(new Set(from).size).toBe(from.length);
    }
    expect(entries.get('bulk-1:prof-1')).toMatchObject({ state: 'PUBLISHED', networkPostId: 'gn_bulk-1_1', final: true });
    expect(entries.get('bulk-3:prof-1')).toMatchObject({ state: 'NOT_PUBLISHED', final: true, error: { code: 'NETWORK_REJECTED' } });
    expect(entries.get('split:prof-1')).toMatchObject({ state: 'PUBLISHED', revision: 2, networkPostId: 'gn_split_2' });
    expect([...entries.get('split:prof-1')!.migratedFrom!].sort()).toEqual(['split:prof-1:1', 'split:prof-1:2']);
    expect(entries.get('started:prof-1')).toMatchObject({ state: 'CALLING', idempotencyKeys: ['started:prof-1:1'], fingerprint: null });
    expect(entries.get('kept:prof-1')).toMatchObject({ state: 'PUBLISHED', networkPostId: 'gn_own', accountId: 'gn-own-1' });
    expect(entries.get('upgraded:prof-1')).toMatchObject({ state: 'CALLING', idempotencyKeys: ['upgraded:prof-1:1'], retryAt: null });

    expect(await migrateLegacyAttempts(db)).toBe(0);
  }, 120000);
});
