import { setLogLevel } from '@social/logger';
import { startPrivateRabbit, type PrivateRabbit } from '@social/testkit';
import { Broker, defineEvent } from '../src';
import { waitFor } from './helpers';

const jobRequested = defineEvent<{ n: number }>({
  type: 'test.job.requested',
  payloadSchema: { type: 'object', required: ['n'], additionalProperties: false, properties: { n: { type: 'integer' } } },
});

setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

// A real restart needs a broker nobody else uses: a RabbitMQ node of this file's own.
describe('Broker across a real RabbitMQ restart', () => {
  let rabbit: PrivateRabbit;
  let broker: Broker | undefined;

  beforeAll(async () => {
    rabbit = await startPrivateRabbit();
  }, 90000);

  afterAll(async () => {
    await broker?.close(1000);
    await rabbit?.destroy();
  }, 60000);

  it('reconnects by itself when the broker is stopped and started again; confirmed messages survive on disk and are consumed', async () => {
    const topology = {
      exchanges: [{ name: 'test.restart', type: 'topic' as const }],
      queues: [{ name: 'restart.q', bindings: [{ exchange: 'test.restart', routingKey: '#' }] }],
    };
    broker = await Broker.connect({
      url: rabbit.amqpUrl,
      connectionName: 'restart-test',
      topology,
      reconnect: { initialMs: 100, maxMs: 1000 },
    });
    const send = (n: number) => broker!.publish(jobRequested, { n }, { workspaceId: null, correlationId: 'c', exchange: 'test.restart' });
    for (let n = 0; n < 50; n++) await send(n);

    await rabbit.restart({ downMs: 1000 });
    const seen = new Set<number>();
    await broker.consume('restart.q', [jobRequested], async (env) => void seen.add(env.payload.n));
    for (let n = 50; n < 60; n++) await send(n); // waits for the reconnect

    await waitFor('all 60 consumed', () => seen.size === 60, 30000);
    expect(broker.isReady()).toBe(true);
  }, 90000);
});
