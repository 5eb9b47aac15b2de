import type { Channel } from 'amqplib';
import { declareTopology, queueArguments } from './topology';

function recordingChannel() {
  const calls: unknown[][] = [];
  const record =
    (name: string) =>
    async (...args: unknown[]) => {
      calls.push([name, ...args]);
      return {};
    };
  const ch = { assertExchange: record('assertExchange'), assertQueue: record('assertQueue'), bindQueue: record('bindQueue') };
  return { ch: ch as unknown as Channel, calls };
}

describe('declareTopology', () => {
  it('declares a quorum queue with delivery limit, its DLQ on social.dlx and its bindings', async () => {
    const { ch, calls } = recordingChannel();
    await declareTopology(ch, {
      exchanges: [{ name: 'social.posts', type: 'topic' }],
      queues: [
        { name: 'publisher.jobs', bindings: [{ exchange: 'social.posts', routingKey: 'post.publish.requested' }] },
        { name: 'posts.results', deliveryLimit: 2, bindings: [] },
      ],
    });
    expect(calls).toEqual([
      ['assertExchange', 'social.dlx', 'direct', { durable: true }],
      ['assertExchange', 'social.posts', 'topic', { durable: true }],
      ['assertQueue', 'publisher.jobs.dlq', { durable: true, arguments: { 'x-queue-type': 'quorum' } }],
      ['bindQueue', 'publisher.jobs.dlq', 'social.dlx', 'publisher.jobs'],
      [
        'assertQueue',
        'publisher.jobs',
        {
          durable: true,
          arguments: expect.objectContaining({
            'x-queue-type': 'quorum',
            'x-delivery-limit': 5,
            'x-dead-letter-exchange': 'social.dlx',
            'x-dead-letter-routing-key': 'publisher.jobs',
          }),
        },
      ],
      ['bindQueue', 'publisher.jobs', 'social.posts', 'post.publish.requested'],
      ['assertQueue', 'posts.results.dlq', { durable: true, arguments: { 'x-queue-type': 'quorum' } }],
      ['bindQueue', 'posts.results.dlq', 'social.dlx', 'posts.results'],
      ['assertQueue', 'posts.results', { durable: true, arguments: expect.objectContaining({ 'x-delivery-limit': 2 }) }],
    ]);
  });

  it('dead-letters a delay queue to the given target and declares no DLQ for it', async () => {
    const { ch, calls } = recordingChannel();
    await declareTopology(ch, {
      exchanges: [],
      queues: [{ name: 'jobs.retry', bindings: [], deadLetterTo: { exchange: '', routingKey: 'jobs' } }],
    });
    expect(calls).toEqual([
      ['assertExchange', 'social.dlx', 'direct', { durable: true }],
      [
        'assertQueue',
        'jobs.retry',
        {
          durable: true,
          arguments: expect.objectContaining({ 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'jobs' }),
        },
      ],
    ]);
  });
});

describe('queueArguments', () => {
  it('asks for a single active consumer only when the queue says so', () => {
    expect(queueArguments({ name: 'q', bindings: [], singleActiveConsumer: true })['x-single-active-consumer']).toBe(true);
    expect(queueArguments({ name: 'q', bindings: [] })).not.toHaveProperty('x-single-active-consumer');
  });
});
