import { randomBytes } from 'node:crypto';
import { closeMongo, connectMongo, upsertRetrying, type Connection } from '../src';

// Against the real server of the test run (FerretDB here, MongoDB elsewhere).
const MONGO_URL = process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017/';

describe('upsertRetrying', () => {
  let conn: Connection;

  beforeAll(async () => {
    conn = await connectMongo({ url: MONGO_URL, dbName: `mongo_test_${randomBytes(4).toString('hex')}` });
  });

  afterAll(async () => {
    await conn.dropDatabase();
    await closeMongo(conn);
  });

  it('lets concurrent upserts of one missing document all succeed, leaving one document', async () => {
    const col = conn.collection<{ _id: string; n?: number }>('generations');
    for (let round = 0; round < 5; round++) {
      const id = `ws-${round}`;
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => upsertRetrying(() => col.updateOne({ _id: id }, { $set: { n: i } }, { upsert: true }))),
      );
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(await col.countDocuments({ _id: id })).toBe(1);
    }
  });

  it('runs the upsert a second time only after a duplicate-key error, and passes other errors on', async () => {
    const duplicate = Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });
    const calls: string[] = [];
    await expect(
      upsertRetrying(async () => {
        calls.push('try');
        if (calls.length === 1) throw duplicate;
        return 'updated';
      }),
    ).resolves.toBe('updated');
    expect(calls).toEqual(['try', 'try']);

    const other = Object.assign(new Error('network'), { code: 6 });
    let tries = 0;
    await expect(upsertRetrying(async () => Promise.reject(Object.assign(other, { tries: ++tries })))).rejects.toBe(other);
    expect(tries).toBe(1);
  });
});

describe('the database under many concurrent updates', () => {
  // FerretDB 1.24 keeps a PostgreSQL connection for an update's query while it takes another for
  // each document's write; with its default pool of 50 this froze it for good.
  it('answers 200 concurrent multi-document updates and findAndModifies', async () => {
    // Connections opened beforehand, as in long-running services (the driver opens them slowly).
    const pool = 'maxPoolSize=200&minPoolSize=200';
    const conn = await connectMongo({ url: `${MONGO_URL}${MONGO_URL.includes('?') ? '&' : '?'}${pool}`, dbName: `mongo_load_${randomBytes(4).toString('hex')}` });
    try {
      const col = conn.collection<{ _id: string; state: string; group: number }>('tasks');
      await col.insertMany(Array.from({ length: 2000 }, (_, i) => ({ _id: `k${i}`, state: 'WAITING', group: i % 100 })));
      await new Promise((r) => setTimeout(r, 3000));
      const changed = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          i % 2 === 0
            ? col.updateMany({ group: i / 2, state: 'WAITING' }, { $set: { state: 'CLAIMED' } }).then((r) => r.modifiedCount)
            : col.findOneAndUpdate({ group: (i - 1) / 2, state: 'CLAIMED' }, { $set: { state: 'DONE' } }).then((d) => (d ? 1 : 0)),
        ),
      );
      expect(changed.length).toBe(200);
      expect(await col.countDocuments({ state: 'WAITING' })).toBe(0);
    } finally {
      await conn.dropDatabase();
      await closeMongo(conn);
    }
  }, 120000);
});
