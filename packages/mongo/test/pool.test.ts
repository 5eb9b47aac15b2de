import { randomBytes } from 'node:crypto';
import { closeMongo, connectMongo } from '../src';

// Against the real server of the test run (FerretDB here, MongoDB elsewhere).
const MONGO_URL = process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017/';

describe('the database under many concurrent updates', () => {
  // FerretDB 1.24 keeps a PostgreSQL connection for an update's query while it takes another for
  // each document's write; with its default pool of 50 this froze it for good.
  it('answers 200 concurrent multi-document updates and findAndModifies', async () => {
    // Connections opened beforehand, as in long-running services (the driver opens them slowly).
    const pool = 'maxPoolSize=200&minPoolSize=200';
    const conn = await connectMongo({
      url: `${MONGO_URL}${MONGO_URL.includes('?') ? '&' : '?'}${pool}`,
      dbName: `mongo_load_${randomBytes(4).toString('hex')}`,
    });
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
