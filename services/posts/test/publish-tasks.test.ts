import { closeMongo, connectMongo, type Connection } from '@social/mongo';
import { dropDatabases, testEnv } from '@social/testkit';
import { PublishTaskRepository, taskId } from '../src/data/publish-task.repository';

// The request id stored with a publish task is what its jobs carry however late, and by whichever
// replica, they are dispatched.
const env = testEnv();
let conn: Connection;
let tasks: PublishTaskRepository;

beforeAll(async () => {
  conn = await connectMongo({ url: env['MONGO_URL']!, dbName: `${env['MONGO_DB_PREFIX']}posts` });
  tasks = new PublishTaskRepository(conn);
});
afterAll(async () => {
  await closeMongo(conn);
  await dropDatabases(env['MONGO_URL']!, env['MONGO_DB_PREFIX']!);
});

describe('a publish task', () => {
  it('keeps the request id that planned it through a claim, a move to later, and a take-over after the lease', async () => {
    const due = new Date(Date.now() - 1000);
    await tasks.plan('w1', 'post-a', 3, due, 'req-schedule-9');

    const claimed = await tasks.claimOne(taskId('post-a', 3), new Date(), 'token-1', 60_000);
    await tasks.release(taskId('post-a', 3), 'token-1', { state: 'WAITING', dueAt: due });
    const again = await tasks.claimOne(taskId('post-a', 3), new Date(), 'token-2', 0);
    const [takenOver] = await tasks.reclaimExpired(claimed!.dueMinute, new Date(Date.now() + 1000), 'token-3', 60_000);

    expect([claimed?.requestId, again?.requestId, takenOver?.requestId]).toEqual(['req-schedule-9', 'req-schedule-9', 'req-schedule-9']);
    expect(takenOver?.claimToken).toBe('token-3');
  });

  it('belongs to the request that planned its revision: a new revision (PUT) brings its own id', async () => {
    const due = new Date(Date.now() + 60_000);
    await tasks.plan('w1', 'post-b', 1, due, 'req-schedule');
    await tasks.plan('w1', 'post-b', 2, due, 'req-put');

    expect((await tasks.get(taskId('post-b', 1)))?.requestId).toBe('req-schedule');
    expect((await tasks.get(taskId('post-b', 2)))?.requestId).toBe('req-put');
  });
});
