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
