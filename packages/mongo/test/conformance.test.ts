import { randomBytes } from 'node:crypto';
import { closeMongo, connectMongo, isDuplicateKeyError, type Connection } from '../src';

/**
 * What our services assume of the database: MongoDB's single-document guarantees under concurrency.
 * Every claim, lease, compare-and-set and counter in services/ relies on these, so they run here
 * against the server of the test run: FerretDB (our build, scripts/infra.sh) on machines without
 * Docker, MongoDB 7 (testcontainers) where Docker exists.
 *
 * The callers come from several connections (as from several service processes) and race for real:
 * each case runs a few rounds, because one lucky interleaving proves nothing.
 */
const MONGO_URL = process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017/';
const N = 50;
const ROUNDS = 3;
const CLIENTS = 5;

let clients: Connection[];
let db: string;
let seq = 0;

beforeAll(async () => {
  db = `conformance_${randomBytes(4).toString('hex')}`;
  const url = `${MONGO_URL}${MONGO_URL.includes('?') ? '&' : '?'}maxPoolSize=${N / CLIENTS}&minPoolSize=${N / CLIENTS}`;
  clients = await Promise.all(Array.from({ length: CLIENTS }, () => connectMongo({ url, dbName: db })));
});

afterAll(async () => {
  await clients[0]?.dropDatabase();
  await Promise.all(clients.map((c) => closeMongo(c)));
});

/** A fresh collection per case, seen through every client. */
function collection<T extends { _id: unknown }>(name: string) {
  const full = `${name}_${++seq}`;
  return {
    name: full,
    through: (caller: number) => clients[caller % CLIENTS]!.collection<T>(full),
  };
}

/** N callers, released together. */
function race<R>(fn: (caller: number) => Promise<R>): Promise<R[]> {
  return Promise.all(Array.from({ length: N }, (_, caller) => fn(caller)));
}

describe('single-document atomicity under concurrency (MongoDB semantics)', () => {
  it('lets exactly one compare-and-set update win, and applies its changes once', async () => {
    const c = collection<{ _id: string; v: number; n: number; by?: number }>('cas');
    for (let round = 0; round < ROUNDS; round++) {
      const id = `doc-${round}`;
      await c.through(0).insertOne({ _id: id, v: 0, n: 0 });
      const results = await race((caller) =>
        c.through(caller).updateOne({ _id: id, v: 0 }, { $set: { v: 1, by: caller }, $inc: { n: 1 } }),
      );
      const winners = results.flatMap((r, caller) => (r.modifiedCount === 1 ? [caller] : []));
      expect(winners).toHaveLength(1);
      expect(results.filter((r) => r.matchedCount === 1)).toHaveLength(1);
      expect(await c.through(0).findOne({ _id: id })).toEqual({ _id: id, v: 1, n: 1, by: winners[0] });
    }
  });

  it('lets exactly one versioned replaceOne win', async () => {
    const c = collection<{ _id: string; version: number; by?: number }>('replace');
    for (let round = 0; round < ROUNDS; round++) {
      const id = `doc-${round}`;
      await c.through(0).insertOne({ _id: id, version: 0 });
      const results = await race((caller) => c.through(caller).replaceOne({ _id: id, version: 0 }, { version: 1, by: caller }));
      const winners = results.flatMap((r, caller) => (r.modifiedCount === 1 ? [caller] : []));
      expect(winners).toHaveLength(1);
      expect(await c.through(0).findOne({ _id: id })).toEqual({ _id: id, version: 1, by: winners[0] });
    }
  });

  it('gives a findOneAndUpdate claim to exactly one owner', async () => {
    const c = collection<{ _id: string; owner: number | null }>('claim');
    for (let round = 0; round < ROUNDS; round++) {
      const id = `task-${round}`;
      await c.through(0).insertOne({ _id: id, owner: null });
      const claims = await race((caller) =>
        c.through(caller).findOneAndUpdate({ _id: id, owner: null }, { $set: { owner: caller } }, { returnDocument: 'after' }),
      );
      const owners = claims.flatMap((doc) => (doc ? [doc.owner] : []));
      expect(owners).toHaveLength(1);
      expect(await c.through(0).findOne({ _id: id })).toEqual({ _id: id, owner: owners[0] });
    }
  });

  it('adds every $inc', async () => {
    const c = collection<{ _id: string; n: number }>('inc');
    for (let round = 0; round < ROUNDS; round++) {
      const id = `counter-${round}`;
      await c.through(0).insertOne({ _id: id, n: 0 });
      const results = await race((caller) => c.through(caller).updateOne({ _id: id }, { $inc: { n: 1 } }));
      expect(results.every((r) => r.modifiedCount === 1)).toBe(true);
      expect((await c.through(0).findOne({ _id: id }))?.n).toBe(N);
    }
  });

  it('keeps every $push', async () => {
    const c = collection<{ _id: string; items: number[] }>('push');
    for (let round = 0; round < ROUNDS; round++) {
      const id = `list-${round}`;
      await c.through(0).insertOne({ _id: id, items: [] });
      await race((caller) => c.through(caller).updateOne({ _id: id }, { $push: { items: caller } }));
      const items = (await c.through(0).findOne({ _id: id }))?.items ?? [];
      expect([...items].sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, i) => i));
    }
  });

  it('upserts one missing document once, without an error reaching any caller', async () => {
    const c = collection<{ _id: string; n: number }>('upsert');
    for (let round = 0; round < ROUNDS; round++) {
      const id = `missing-${round}`;
      const results = await Promise.allSettled(
        Array.from({ length: N }, (_, caller) => c.through(caller).updateOne({ _id: id }, { $inc: { n: 1 } }, { upsert: true })),
      );
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(await c.through(0).find({ _id: id }).toArray()).toEqual([{ _id: id, n: N }]);
    }
  });

  it('upserts through findOneAndUpdate once, each caller seeing its own increment', async () => {
    const c = collection<{ _id: string; n: number }>('upsert_fam');
    const docs = await race((caller) =>
      c.through(caller).findOneAndUpdate({ _id: 'gen' }, { $inc: { n: 1 } }, { upsert: true, returnDocument: 'after' }),
    );
    expect(docs.map((d) => d?.n).sort((a, b) => a! - b!)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(await c.through(0).countDocuments({})).toBe(1);
  });

  it('hands N queued documents claimed with sort to N distinct owners, none twice', async () => {
    const c = collection<{ _id: string; state: string; due: number; owner?: number }>('queue');
    for (let round = 0; round < ROUNDS; round++) {
      const group = `r${round}`;
      await c.through(0).insertMany(Array.from({ length: N }, (_, i) => ({ _id: `${group}-${i}`, state: `QUEUED-${group}`, due: N - i })));
      const claimed = await race((caller) =>
        c
          .through(caller)
          .findOneAndUpdate(
            { state: `QUEUED-${group}` },
            { $set: { state: `CLAIMED-${group}`, owner: caller } },
            { sort: { due: 1 }, returnDocument: 'after' },
          ),
      );
      expect(claimed.every((d) => d !== null)).toBe(true);
      expect(new Set(claimed.map((d) => d!._id)).size).toBe(N);
      const stored = await c
        .through(0)
        .find({ _id: { $in: claimed.map((d) => d!._id) } })
        .toArray();
      const ownerOf = new Map(stored.map((d) => [d._id, d.owner]));
      claimed.forEach((d, caller) => expect(ownerOf.get(d!._id)).toBe(caller));
    }
  });

  it('lets concurrent updateMany move each document once', async () => {
    const c = collection<{ _id: string; state: string; moves: number }>('many');
    await c.through(0).insertMany(Array.from({ length: N }, (_, i) => ({ _id: `m-${i}`, state: 'A', moves: 0 })));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, caller) => c.through(caller).updateMany({ state: 'A' }, { $set: { state: 'B' }, $inc: { moves: 1 } })),
    );
    expect(results.reduce((sum, r) => sum + r.modifiedCount, 0)).toBe(N);
    const docs = await c.through(0).find({}).toArray();
    expect(docs.every((d) => d.state === 'B' && d.moves === 1)).toBe(true);
  });
});

describe('batched writes (one command, many documents) under concurrency', () => {
  it('counts in matchedCount exactly the compare-and-sets of a bulkWrite that won, racing other batches', async () => {
    // The publisher and posts trust "matchedCount === number of writes" to mean every write of the
    // batch was stored, and read back a per-write id otherwise.
    const c = collection<{ _id: string; version: number; by?: string }>('bulk_cas');
    const DOCS = 20;
    for (let round = 0; round < ROUNDS; round++) {
      const ids = Array.from({ length: DOCS }, (_, i) => `r${round}-doc-${i}`);
      await c.through(0).insertMany(ids.map((_id) => ({ _id, version: 0 })));
      const results = await race((caller) =>
        c.through(caller).bulkWrite(
          // Each caller goes for a different half of the documents, in its own order.
          ids
            .filter((_, i) => (i + caller) % 2 === 0)
            .map((_id) => ({ replaceOne: { filter: { _id, version: 0 }, replacement: { version: 1, by: `c${caller}` } } })),
          { ordered: false },
        ),
      );
      const docs = await c
        .through(0)
        .find({ _id: { $in: ids } })
        .toArray();
      expect(docs.every((d) => d.version === 1)).toBe(true);
      const won = new Map<string, number>();
      for (const d of docs) won.set(d.by!, (won.get(d.by!) ?? 0) + 1);
      results.forEach((r, caller) => {
        expect(r.matchedCount).toBe(won.get(`c${caller}`) ?? 0);
        expect(r.modifiedCount).toBe(won.get(`c${caller}`) ?? 0);
      });
    }
  });

  it('inserts every other document of an unordered insertMany and names each duplicate by its index', async () => {
    const c = collection<{ _id: string; by: number }>('bulk_insert');
    for (let round = 0; round < ROUNDS; round++) {
      const ids = Array.from({ length: 10 }, (_, i) => `r${round}-doc-${i}`);
      // N callers insert overlapping sets: each document must end up inserted by exactly one.
      const outcomes = await race(async (caller) => {
        const mine = ids.filter((_, i) => (i + caller) % 3 !== 0);
        try {
          await c.through(caller).insertMany(
            mine.map((_id) => ({ _id, by: caller })),
            { ordered: false },
          );
          return { mine, duplicates: [] as string[] };
        } catch (err) {
          const writeErrors = (err as { writeErrors?: { index: number; code: number }[] }).writeErrors ?? [];
          expect(writeErrors.length).toBeGreaterThan(0);
          expect(writeErrors.every((e) => e.code === 11000)).toBe(true);
          return { mine, duplicates: writeErrors.map((e) => mine[e.index]!) };
        }
      });
      const docs = await c
        .through(0)
        .find({ _id: { $in: ids } })
        .toArray();
      expect(docs).toHaveLength(ids.length);
      for (const d of docs) {
        const inserters = outcomes.flatMap((o, caller) => (o.mine.includes(d._id) && !o.duplicates.includes(d._id) ? [caller] : []));
        expect(inserters).toEqual([d.by]);
      }
    }
  });
});

describe('unique indexes under concurrency', () => {
  it('accepts exactly one of N inserts of the same _id', async () => {
    const c = collection<{ _id: string; by: number }>('ids');
    const results = await Promise.allSettled(
      Array.from({ length: N }, (_, caller) => c.through(caller).insertOne({ _id: 'same', by: caller })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').every((r) => isDuplicateKeyError((r as PromiseRejectedResult).reason))).toBe(
      true,
    );
    expect(await c.through(0).countDocuments({})).toBe(1);
  });

  it('accepts exactly one of N inserts of the same secondary unique key', async () => {
    const c = collection<{ _id: number; email: string }>('emails');
    await c.through(0).createIndex({ email: 1 }, { unique: true });
    const results = await Promise.allSettled(
      Array.from({ length: N }, (_, caller) => c.through(caller).insertOne({ _id: caller, email: 'a@x.test' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').every((r) => isDuplicateKeyError((r as PromiseRejectedResult).reason))).toBe(
      true,
    );
    expect(await c.through(0).countDocuments({ email: 'a@x.test' })).toBe(1);
  });

  it('upserts one document by a secondary unique key without an error reaching any caller', async () => {
    const c = collection<{ _id: unknown; email: string; n: number }>('upsert_unique');
    await c.through(0).createIndex({ email: 1 }, { unique: true });
    const results = await Promise.allSettled(
      Array.from({ length: N }, (_, caller) => c.through(caller).updateOne({ email: 'b@x.test' }, { $inc: { n: 1 } }, { upsert: true })),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const docs = await c.through(0).find({ email: 'b@x.test' }).toArray();
    expect(docs.map((d) => d.n)).toEqual([N]);
  });
});

describe('writes racing a delete', () => {
  it('never loses an increment that reported success: the deleted document holds them all', async () => {
    const c = collection<{ _id: string; n: number }>('inc_delete');
    for (let round = 0; round < ROUNDS; round++) {
      const id = `doomed-${round}`;
      await c.through(0).insertOne({ _id: id, n: 0 });
      const [updates, deleted] = await Promise.all([
        race((caller) => c.through(caller).updateOne({ _id: id }, { $inc: { n: 1 } })),
        new Promise((r) => setTimeout(r, 5)).then(() => c.through(1).findOneAndDelete({ _id: id })),
      ]);
      const succeeded = updates.filter((u) => u.modifiedCount === 1).length;
      expect(deleted?.n).toBe(succeeded);
      expect(await c.through(0).countDocuments({ _id: id })).toBe(0);
    }
  });

  it('lets either a conditional delete or a compare-and-set update win, never both', async () => {
    const c = collection<{ _id: string; v: number }>('cas_delete');
    for (let round = 0; round < ROUNDS * 5; round++) {
      const id = `contested-${round}`;
      await c.through(0).insertOne({ _id: id, v: 0 });
      const outcomes = await race((caller) =>
        caller % 2 === 0
          ? c
              .through(caller)
              .deleteOne({ _id: id, v: 0 })
              .then((r) => (r.deletedCount === 1 ? 'deleted' : 'lost'))
          : c
              .through(caller)
              .updateOne({ _id: id, v: 0 }, { $set: { v: 1 } })
              .then((r) => (r.modifiedCount === 1 ? 'updated' : 'lost')),
      );
      const wins = outcomes.filter((o) => o !== 'lost');
      expect(wins).toHaveLength(1);
      const left = await c.through(0).findOne({ _id: id });
      expect(left).toEqual(wins[0] === 'deleted' ? null : { _id: id, v: 1 });
    }
  });

  it('claims each document once when claims race deletes of claimed documents', async () => {
    const c = collection<{ _id: string; state: string; owner?: number }>('claim_delete');
    await c.through(0).insertMany(Array.from({ length: N }, (_, i) => ({ _id: `q-${i}`, state: 'QUEUED' })));
    const results = await race(async (caller) => {
      const claimed = await c
        .through(caller)
        .findOneAndUpdate({ state: 'QUEUED' }, { $set: { state: 'CLAIMED', owner: caller } }, { returnDocument: 'after' });
      if (!claimed) return null;
      const removed = await c.through(caller + 1).deleteOne({ _id: claimed._id, state: 'CLAIMED', owner: caller });
      return removed.deletedCount === 1 ? claimed._id : `not deleted: ${claimed._id}`;
    });
    expect(new Set(results).size).toBe(N);
    expect(results.every((r) => typeof r === 'string' && r.startsWith('q-'))).toBe(true);
    expect(await c.through(0).countDocuments({})).toBe(0);
  });
});
