import type { Channel } from 'amqplib';

export interface ExchangeSpec {
  name: string;
  type: 'topic' | 'direct' | 'fanout' | 'headers';
}

export interface BindingSpec {
  exchange: string;
  routingKey: string;
}

export interface QueueSpec {
  name: string;
  bindings: BindingSpec[];
  /** Failed deliveries after the first before the message is dead-lettered (default 5). */
  deliveryLimit?: number;
  /** Default prefetch of consumers of this queue. */
  prefetch?: number;
  /**
   * Where expired or rejected messages go instead of `<queue>.dlq` (no DLQ is declared then). A
   * delay queue uses it with `messageTtlMs` to send messages back to a work queue later.
   */
  deadLetterTo?: { exchange: string; routingKey: string };
  /**
   * Lifetime of every message of the queue. One lifetime per queue keeps expiry in order: a queue
   * only expires the message at its head, so mixed per-message lifetimes let a long one hold back
   * every shorter one behind it.
   */
  messageTtlMs?: number;
  /**
   * Only one consumer (of any process) receives messages at a time; the others stand by. For a
   * queue whose messages must be handled in order (the webhooks inbox), while its work is light.
   */
  singleActiveConsumer?: boolean;
}

export interface Topology {
  exchanges: ExchangeSpec[];
  queues: QueueSpec[];
}

/** One dead-letter exchange for every queue; the routing key is the queue's own name. */
export const DEAD_LETTER_EXCHANGE = 'social.dlx';
export const DEFAULT_DELIVERY_LIMIT = 5;

export const dlqName = (queue: string): string => `${queue}.dlq`;

export function queueArguments(queue: QueueSpec): Record<string, unknown> {
  return {
    'x-queue-type': 'quorum',
    'x-delivery-limit': queue.deliveryLimit ?? DEFAULT_DELIVERY_LIMIT,
    'x-dead-letter-exchange': queue.deadLetterTo?.exchange ?? DEAD_LETTER_EXCHANGE,
    'x-dead-letter-routing-key': queue.deadLetterTo?.routingKey ?? queue.name,
    // At-least-once dead-lettering keeps a poison message in its queue until the DLQ has confirmed
    // it; the default (at-most-once) can lose it. RabbitMQ requires reject-publish overflow for it.
    'x-dead-letter-strategy': 'at-least-once',
    'x-overflow': 'reject-publish',
    ...(queue.messageTtlMs !== undefined ? { 'x-message-ttl': queue.messageTtlMs } : {}),
    ...(queue.singleActiveConsumer ? { 'x-single-active-consumer': true } : {}),
  };
}

/**
 * Declares exchanges, queues, their DLQs and bindings. Every declaration is idempotent, so this
 * runs after every (re)connect: a broker that lost its definitions gets them back.
 */
export async function declareTopology(ch: Channel, topology: Topology): Promise<void> {
  await ch.assertExchange(DEAD_LETTER_EXCHANGE, 'direct', { durable: true });
  for (const exchange of topology.exchanges) {
    await ch.assertExchange(exchange.name, exchange.type, { durable: true });
  }
  for (const queue of topology.queues) {
    if (!queue.deadLetterTo) {
      const dlq = dlqName(queue.name);
      await ch.assertQueue(dlq, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      await ch.bindQueue(dlq, DEAD_LETTER_EXCHANGE, queue.name);
    }
    await ch.assertQueue(queue.name, { durable: true, arguments: queueArguments(queue) });
    for (const binding of queue.bindings) {
      await ch.bindQueue(queue.name, binding.exchange, binding.routingKey);
    }
  }
}
