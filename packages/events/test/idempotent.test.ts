import { setLogLevel } from '@social/logger';
import { closeMongo, connectMongo, MongoProcessedEventStore, type Connection } from '@social/mongo';
import { Broker, defineEvent, idempotent, type EventEnvelope } from '../src';
import { Admin, AMQP_URL, MONGO_URL, sleep, suffix, testTopology, waitFor } from './helpers';

const postPublished = defineEvent<{ postId: string }>({
  type: 'test.post.published',
  payloadSchema: { type: 'object', required: ['postId'], properties: { postId: { type: 'string' } } },
});

// Expected failures (poison messages, dead-lettering) log at error level; TEST_LOG_LEVEL=info shows the story.
setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

describe('idempotent consumers with MongoProcessedEventStore', () => {
  let conn: Connection;
  let admin: Admin;

  beforeAll(async () => {
    conn = await connectMongo({ url: MONGO_URL, dbName: `events_test_${suffix()}` });
    admin = await Admin.open();
  });

  afterAll(async () => {
    await conn.dropDatabase();
    await closeMongo(conn);
    await admin.close();
  });

  it('runs the handler once for an event delivered twice, and acks both deliveries', async () => {
    const { topology, exchange, queue } = testTopology('idempotent');
    const broker = await Broker.connect({ url: AMQP_URL, connectionName: `events-test-idempotent-${suffix()}`, topology });
    try {
      const store = new MongoProcessedEventStore(conn, 'test:published');
      const handled: EventEnvelope<{ postId: string }>[] = [];
      const handler = idempotent(store, async (env: EventEnvelope<{ postId: string }>) => void handled.push(env));
      let deliveries = 0;
      await broker.consume(queue, [postPublished], async (env, ctx) => {
        await handler(env, ctx);
        deliveries += 1;
      });

      const first = await broker.publish(postPublished, { postId: 'p-1' }, { workspaceId: 'w', correlationId: 'c', exchange });
      await waitFor('the first delivery', () => deliveries === 1);
      await broker.publish(postPublished, { postId: 'p-1' }, { workspaceId: 'w', correlationId: 'c', exchange, id: first.id });
      await broker.publish(postPublished, { postId: 'p-2' }, { workspaceId: 'w', correlationId: 'c', exchange });
      await waitFor('three deliveries', () => deliveries === 3);

      expect(handled.map((e) => e.payload.postId)).toEqual(['p-1', 'p-2']);
      await waitFor('every delivery acked', async () => (await admin.ready(queue)) === 0);
      expect(await store.has(first.id)).toBe(true);
    } finally {
      await broker.close(1000);
      await admin.remove(topology);
    }
  });

  it('does not mark an event whose handler failed, so the redelivery runs it again', async () => {
    const store = new MongoProcessedEventStore(conn, 'test:flaky');
    let calls = 0;
    const handler = idempotent(store, async () => {
      calls += 1;
      if (calls === 1) throw new Error('transient');
    });
    const env = {
      id: '3e6a3c36-3e8e-4a4b-a1c4-0f1d2c3b4a59',
      type: 'test.post.published',
      occurredAt: new Date().toISOString(),
      correlationId: 'c',
      workspaceId: null,
      payload: {},
    };

    await expect(handler(env, {})).rejects.toThrow('transient');
    expect(await store.has(env.id)).toBe(false);
    await handler(env, {});
    await handler(env, {});
    expect(calls).toBe(2);
  });

  it('treats a second mark of the same event as already processed, per consumer', async () => {
    const a = new MongoProcessedEventStore(conn, 'test:a');
    const b = new MongoProcessedEventStore(conn, 'test:b');

    await a.markProcessed('e-1', 't');
    await expect(a.markProcessed('e-1', 't')).resolves.toBeUndefined();

    expect(await a.has('e-1')).toBe(true);
    expect(await b.has('e-1')).toBe(false);
    const stored = await conn.collection('processed_events').findOne({ _id: 'test:a:e-1' as unknown as never });
    expect(stored).toMatchObject({ consumer: 'test:a', eventId: 'e-1', type: 't', processedAt: expect.any(Date) });
  });

  it("prunes only this consumer's marks older than the given date", async () => {
    const store = new MongoProcessedEventStore(conn, 'test:prune');
    const other = new MongoProcessedEventStore(conn, 'test:prune-other');
    await store.markProcessed('old', 't');
    await other.markProcessed('old', 't');
    await sleep(20);
    const cutoff = new Date();
    await sleep(20);
    await store.markProcessed('new', 't');

    expect(await store.prune(cutoff)).toBe(1);

    expect(await store.has('old')).toBe(false);
    expect(await store.has('new')).toBe(true);
    expect(await other.has('old')).toBe(true);
  });
});
