import { getContext, runWithContext, setLogLevel } from '@social/logger';
import {
  Broker,
  defineEvent,
  dlqName,
  PermanentError,
  type BrokerOptions,
  type ConsumeContext,
  type EventEnvelope,
  type Topology,
} from '../src';
import { Admin, AMQP_URL, connectionsNamed, deferred, forceClose, sleep, suffix, TcpProxy, testTopology, waitFor } from './helpers';

interface JobRequested {
  postId: string;
}

const jobRequested = defineEvent<JobRequested>({
  type: 'test.job.requested',
  payloadSchema: { type: 'object', required: ['postId'], additionalProperties: false, properties: { postId: { type: 'string' } } },
});

// Expected failures (poison messages, dead-lettering) log at error level; TEST_LOG_LEVEL=info shows the story.
setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

describe('Broker against RabbitMQ', () => {
  let admin: Admin;
  const brokers: Broker[] = [];
  const topologies: Topology[] = [];

  beforeAll(async () => {
    admin = await Admin.open();
  });

  afterEach(async () => {
    await Promise.all(brokers.splice(0).map((b) => b.close(1000)));
  });

  afterAll(async () => {
    for (const t of topologies) await admin.remove(t);
    await admin.close();
  });

  async function setUp(name: string, options: { deliveryLimit?: number } & Partial<BrokerOptions> = {}) {
    const t = testTopology(name, options.deliveryLimit);
    topologies.push(t.topology);
    const connectionName = `events-test-${name}-${suffix()}`;
    const broker = await Broker.connect({ url: AMQP_URL, connectionName, topology: t.topology, ...options });
    brokers.push(broker);
    return { ...t, broker, connectionName };
  }

  it('delivers a published event to the consumer with its envelope, context and log context', async () => {
    const { broker, exchange, queue } = await setUp('roundtrip');
    const received = deferred<{ env: EventEnvelope<JobRequested>; ctx: ConsumeContext; log: unknown }>();
    await broker.consume(queue, [jobRequested], async (env, ctx) => received.resolve({ env, ctx, log: getContext() }));

    const published = await broker.publish(jobRequested, { postId: 'p-1' }, { workspaceId: 'w-1', correlationId: 'corr-1', exchange });

    const { env, ctx, log } = await received.promise;
    expect(env).toEqual(published);
    expect(env).toMatchObject({ type: 'test.job.requested', workspaceId: 'w-1', correlationId: 'corr-1', payload: { postId: 'p-1' } });
    expect(ctx).toEqual({ queue, deliveryCount: 0, deliveryLimit: 5, isLastAttempt: false });
    expect(log).toEqual({ correlationId: 'corr-1', requestId: 'corr-1', workspaceId: 'w-1' });
    await waitFor('the ack', async () => (await admin.ready(queue)) === 0);
  });

  it('gives events published in a request the request id, and events published by a handler the id it consumed', async () => {
    const { broker, exchange, queue } = await setUp('correlation');
    const seen: EventEnvelope<JobRequested>[] = [];
    const second = deferred();
    await broker.consume(queue, [jobRequested], async (env) => {
      seen.push(env);
      if (env.payload.postId === 'from-request')
        await broker.publish(jobRequested, { postId: 'from-handler' }, { workspaceId: 'w-1', exchange });
      else second.resolve();
    });

    await runWithContext({ requestId: 'req-42' }, () =>
      broker.publish(jobRequested, { postId: 'from-request' }, { workspaceId: 'w-1', exchange }),
    );
    await second.promise;

    expect(seen.map((e) => [e.payload.postId, e.correlationId])).toEqual([
      ['from-request', 'req-42'],
      ['from-handler', 'req-42'],
    ]);
  });

  it('publishes persistent JSON with the envelope id as message id and the type', async () => {
    const { broker, exchange, queue } = await setUp('properties');

    const env = await broker.publish(
      jobRequested,
      { postId: 'p-2' },
      { workspaceId: null, correlationId: 'c-2', exchange, routingKey: 'jobs.x' },
    );

    const [msg] = await admin.take(queue, 1);
    expect(JSON.parse(msg!.content.toString())).toEqual(env);
    expect(msg!.properties).toMatchObject({
      contentType: 'application/json',
      messageId: env.id,
      type: 'test.job.requested',
      deliveryMode: 2,
    });
    expect(msg!.fields.routingKey).toBe('jobs.x');
  });

  it('rejects an invalid payload before sending anything', async () => {
    const { broker, exchange, queue } = await setUp('invalid-publish');

    await expect(
      broker.publish(jobRequested, { postId: 42 } as unknown as JobRequested, { workspaceId: null, correlationId: 'c', exchange }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: '/payload/postId', message: 'must be string' }] });
    expect(await admin.ready(queue)).toBe(0);
  });

  it('rejects a message no queue is bound for instead of letting the broker drop it', async () => {
    const { broker, exchange, queue } = await setUp('unroutable');
    await admin.ch.unbindQueue(queue, exchange, '#');

    await expect(
      broker.publish(jobRequested, { postId: 'p' }, { workspaceId: null, correlationId: 'c', exchange, routingKey: 'nobody.listens' }),
    ).rejects.toMatchObject({ code: 'EVENT_UNROUTABLE' });
    await expect(
      broker.publish(jobRequested, { postId: 'p' }, { workspaceId: null, correlationId: 'c', exchange: `${exchange}.undeclared` }),
    ).rejects.toMatchObject({ code: 'EVENT_UNKNOWN_EXCHANGE' });

    // The publish channel is still healthy afterwards.
    await admin.ch.bindQueue(queue, exchange, '#');
    await broker.publish(jobRequested, { postId: 'p' }, { workspaceId: null, correlationId: 'c', exchange });
    await admin.take(queue, 1);
  });

  it('sends invalid JSON, unknown types and envelopes that break the schema to the DLQ without calling the handler', async () => {
    const { broker, exchange, queue } = await setUp('poison');
    let calls = 0;
    await broker.consume(queue, [jobRequested], async () => {
      calls += 1;
    });

    const valid = {
      id: '7b0f4f3e-0d7c-4a43-9e55-9a6f1b8f0b11',
      type: 'test.job.requested',
      occurredAt: new Date().toISOString(),
      correlationId: 'c',
      workspaceId: null,
    };
    const bodies = [
      'not json {',
      JSON.stringify({ ...valid, type: 'test.other.event', payload: {} }),
      JSON.stringify({ ...valid, payload: { postId: 7 } }),
    ];
    for (const body of bodies) admin.ch.publish(exchange, 'raw', Buffer.from(body));

    const dead = await admin.take(dlqName(queue), 3);
    expect(dead.map((m) => m.content.toString()).sort()).toEqual([...bodies].sort());
    expect(dead[0]!.properties.headers?.['x-first-death-reason']).toBe('rejected');
    expect(calls).toBe(0);
    expect(await admin.ready(queue)).toBe(0);
  });

  it('shows an invalid message to onInvalid before dead-lettering it, and redelivers it while onInvalid fails', async () => {
    const { broker, exchange, queue } = await setUp('on-invalid', { deliveryLimit: 3 });
    const seen: [unknown, string, number][] = [];
    await broker.consume(queue, [jobRequested], async () => undefined, {
      onInvalid: async (m, ctx) => {
        seen.push([m.data, m.reason, ctx.deliveryCount]);
        if ((m.data as { payload?: { postId?: unknown } } | undefined)?.payload?.postId === 'flaky' && ctx.deliveryCount < 1) {
          throw new Error('ledger unreachable');
        }
      },
    });

    admin.ch.publish(exchange, 'raw', Buffer.from('not json {'));
    await admin.take(dlqName(queue), 1);
    admin.ch.publish(exchange, 'raw', Buffer.from(JSON.stringify({ type: 'test.job.requested', payload: { postId: 'flaky' } })));
    await admin.take(dlqName(queue), 1);

    expect(seen).toEqual([
      [undefined, 'body is not JSON', 0],
      [{ type: 'test.job.requested', payload: { postId: 'flaky' } }, 'envelope does not match its schema', 0],
      [{ type: 'test.job.requested', payload: { postId: 'flaky' } }, 'envelope does not match its schema', 1],
    ]);
    expect(await admin.ready(queue)).toBe(0);
  });

  it('retries a failing handler and dead-letters the message after the delivery limit', async () => {
    const { broker, exchange, queue } = await setUp('always-fails', { deliveryLimit: 2 });
    const attempts: ConsumeContext[] = [];
    await broker.consume(queue, [jobRequested], async (_env, ctx) => {
      attempts.push(ctx);
      throw new Error('network is down');
    });

    const env = await broker.publish(jobRequested, { postId: 'p-3' }, { workspaceId: 'w', correlationId: 'c', exchange });

    const [dead] = await admin.take(dlqName(queue), 1);
    expect(JSON.parse(dead!.content.toString())).toEqual(env);
    expect(attempts.map((a) => [a.deliveryCount, a.isLastAttempt])).toEqual([
      [0, false],
      [1, false],
      [2, true],
    ]);
    expect(await admin.ready(queue)).toBe(0);
  });

  it('dead-letters at once when the handler throws a permanent error', async () => {
    const { broker, exchange, queue } = await setUp('permanent');
    let calls = 0;
    await broker.consume(queue, [jobRequested], async () => {
      calls += 1;
      throw new PermanentError('post was deleted');
    });

    await broker.publish(jobRequested, { postId: 'gone' }, { workspaceId: 'w', correlationId: 'c', exchange });

    await admin.take(dlqName(queue), 1);
    expect(calls).toBe(1);
  });

  it('confirms a burst of 3000 concurrent publishes and the consumer gets every one', async () => {
    const { broker, exchange, queue } = await setUp('burst');
    const seen = new Set<string>();
    await broker.consume(queue, [jobRequested], async (env) => void seen.add(env.payload.postId), { prefetch: 200 });

    const started = Date.now();
    const envs = await Promise.all(
      Array.from({ length: 3000 }, (_, i) =>
        broker.publish(jobRequested, { postId: `p-${i}` }, { workspaceId: 'w', correlationId: 'c', exchange }),
      ),
    );
    const confirmedMs = Date.now() - started;

    expect(new Set(envs.map((e) => e.id)).size).toBe(3000);
    await waitFor('all 3000 consumed', () => seen.size === 3000, 30000);
    // Pipelined confirms make this a fraction of a second; one-at-a-time confirms take far longer.
    expect(confirmedMs).toBeLessThan(30000);
  });

  it('reconnects after the broker drops the connection, re-subscribes and consumes new messages', async () => {
    const { broker, exchange, queue, connectionName } = await setUp('reconnect', {
      reconnect: { initialMs: 100, maxMs: 500 },
      heartbeatSeconds: 7,
    });
    const received: string[] = [];
    await broker.consume(queue, [jobRequested], async (env) => void received.push(env.payload.postId));
    await broker.publish(jobRequested, { postId: 'before' }, { workspaceId: 'w', correlationId: 'c', exchange });
    await waitFor('first message', () => received.includes('before'));
    const [first] = await connectionsNamed(connectionName);
    expect(first?.timeout).toBe(7);

    await forceClose(connectionName);
    const [second] = await waitFor('a new connection', async () => {
      const now = await connectionsNamed(connectionName);
      return now.length === 1 && now[0]!.name !== first!.name && now;
    });
    expect(second!.timeout).toBe(7);
    await broker.publish(jobRequested, { postId: 'after' }, { workspaceId: 'w', correlationId: 'c', exchange });

    await waitFor('message after reconnect', () => received.includes('after'));
    expect(broker.isReady()).toBe(true);
    expect(received).toEqual(['before', 'after']);
  });

  it('declares the topology again when an exchange is deleted under a publisher, and the publish still lands', async () => {
    const { broker, exchange, queue } = await setUp('exchange-deleted', { reconnect: { initialMs: 50, maxMs: 200 } });
    const received: string[] = [];
    await broker.consume(queue, [jobRequested], async (env) => void received.push(env.payload.postId));
    await admin.ch.deleteExchange(exchange);

    await broker.publish(jobRequested, { postId: 'healed' }, { workspaceId: 'w', correlationId: 'c', exchange });

    await waitFor('the message', () => received.includes('healed'));
    expect(broker.isReady()).toBe(true);
  });

  it('re-subscribes a consumer whose queue was deleted, declaring the queue again', async () => {
    const { broker, exchange, queue } = await setUp('queue-deleted', { reconnect: { initialMs: 50, maxMs: 200 } });
    const received: string[] = [];
    await broker.consume(queue, [jobRequested], async (env) => void received.push(env.payload.postId));
    await admin.ch.deleteQueue(queue);

    await waitFor('the queue back with a consumer', async () => (await admin.consumers(queue)) === 1);
    await broker.publish(jobRequested, { postId: 'resubscribed' }, { workspaceId: 'w', correlationId: 'c', exchange });

    await waitFor('the message', () => received.includes('resubscribed'));
  });

  it('waits for the connection while the broker is unreachable, then rejects with BROKER_UNAVAILABLE', async () => {
    const proxy = new TcpProxy();
    await proxy.start();
    try {
      const t = testTopology('unreachable');
      topologies.push(t.topology);
      const broker = await Broker.connect({
        url: proxy.url,
        connectionName: `events-test-unreachable-${suffix()}`,
        topology: t.topology,
        reconnect: { initialMs: 50, maxMs: 200 },
      });
      brokers.push(broker);
      const got = deferred<string>();
      await broker.consume(t.queue, [jobRequested], async (env) => got.resolve(env.payload.postId));

      await proxy.stop();
      await waitFor('the client to notice', () => !broker.isReady());
      const started = Date.now();
      const failure = await broker
        .publish(jobRequested, { postId: 'lost?' }, { workspaceId: 'w', correlationId: 'c', exchange: t.exchange, timeoutMs: 400 })
        .catch((err: unknown) => err);
      expect(failure).toMatchObject({ code: 'BROKER_UNAVAILABLE', status: 503 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(350);

      const pending = broker.publish(
        jobRequested,
        { postId: 'waited' },
        { workspaceId: 'w', correlationId: 'c', exchange: t.exchange, timeoutMs: 10000 },
      );
      await sleep(300);
      await proxy.start();
      await pending;
      expect(await got.promise).toBe('waited');
    } finally {
      await proxy.stop();
    }
  });

  it('close() lets an in-flight handler finish and ack, and does not reconnect afterwards', async () => {
    const { broker, exchange, queue, connectionName } = await setUp('close-drains');
    brokers.pop();
    const started = deferred();
    let finished = false;
    await broker.consume(queue, [jobRequested], async () => {
      started.resolve();
      await sleep(700);
      finished = true;
    });
    await broker.publish(jobRequested, { postId: 'slow' }, { workspaceId: 'w', correlationId: 'c', exchange });
    await started.promise;

    const t0 = Date.now();
    await broker.close(5000);

    expect(finished).toBe(true);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
    // Acked before the channel closed: had it not been, the broker would have put it back.
    await waitFor('the ack to settle', async () => (await admin.ready(queue)) === 0, 5000);
    expect(broker.isReady()).toBe(false);
    await expect(broker.publish(jobRequested, { postId: 'x' }, { workspaceId: 'w', correlationId: 'c', exchange })).rejects.toMatchObject({
      code: 'BROKER_UNAVAILABLE',
    });
    await sleep(500);
    expect(await connectionsNamed(connectionName)).toHaveLength(0);
  });

  it('close() gives up on a handler that outlives the grace period, and its message is redelivered later', async () => {
    const { broker, exchange, queue } = await setUp('close-grace');
    brokers.pop();
    const started = deferred();
    const handlerDone = deferred();
    await broker.consume(queue, [jobRequested], async () => {
      started.resolve();
      await sleep(6000);
      handlerDone.resolve();
    });
    await broker.publish(jobRequested, { postId: 'too-slow' }, { workspaceId: 'w', correlationId: 'c', exchange });
    await started.promise;

    const t0 = Date.now();
    await broker.close(200);
    const elapsed = Date.now() - t0;

    // Well under the handler's 6 s: close() gave up after its grace period.
    expect(elapsed).toBeLessThan(3000);
    await waitFor('the message back in its queue', async () => (await admin.ready(queue)) === 1);
    await handlerDone.promise;
  });
});
