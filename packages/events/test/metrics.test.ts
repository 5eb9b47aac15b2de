import { setLogLevel } from '@social/logger';
import { queueMessagesConsumed, queueMessagesPublished } from '@social/metrics';
import { Broker, defineEvent, dlqName, type Topology } from '../src';
import { Admin, AMQP_URL, suffix, testTopology, waitFor } from './helpers';

const jobRequested = defineEvent<{ postId: string }>({
  type: 'test.metrics.job',
  payloadSchema: { type: 'object', required: ['postId'], properties: { postId: { type: 'string' } } },
});

setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

async function consumed(queue: string, outcome: string): Promise<number> {
  const { values } = await queueMessagesConsumed().get();
  return values.find((v) => v.labels['queue'] === queue && v.labels['outcome'] === outcome)?.value ?? 0;
}

describe('queue metrics of the Broker', () => {
  let admin: Admin;
  let broker: Broker | undefined;
  let topology: Topology | undefined;

  beforeAll(async () => {
    admin = await Admin.open();
  });

  afterAll(async () => {
    await broker?.close(1000);
    if (topology) await admin.remove(topology);
    await admin.close();
  });

  it('counts confirmed publishes and each consume outcome: ack, requeue and dead_letter', async () => {
    const t = testTopology('metrics', 1);
    topology = t.topology;
    broker = await Broker.connect({ url: AMQP_URL, connectionName: `events-metrics-${suffix()}`, topology });
    await broker.consume(t.queue, [jobRequested], async (env) => {
      if (env.payload.postId === 'bad') throw new Error('network is down');
    });

    await broker.publish(jobRequested, { postId: 'good' }, { workspaceId: 'w', exchange: t.exchange });
    await broker.publish(jobRequested, { postId: 'bad' }, { workspaceId: 'w', exchange: t.exchange });
    await admin.take(dlqName(t.queue), 1);

    await waitFor('the ack', async () => (await consumed(t.queue, 'ack')) === 1);
    // Delivery limit 1: the first failure requeues, the second is the last attempt and dead-letters.
    expect(await consumed(t.queue, 'requeue')).toBe(1);
    expect(await consumed(t.queue, 'dead_letter')).toBe(1);
    const published = (await queueMessagesPublished().get()).values.find(
      (v) => v.labels['exchange'] === t.exchange && v.labels['type'] === 'test.metrics.job' && v.labels['outcome'] === 'confirmed',
    );
    expect(published?.value).toBe(2);
  });
});
