import type { Channel, ConsumeMessage } from 'amqplib';
import { createLogger, errorFields } from '@social/logger';
import { queueMessagesConsumed } from '@social/metrics';

const log = createLogger('events');

/**
 * How a delivery ends. `requeue` hands it back for another attempt (the quorum queue counts it
 * against x-delivery-limit); `dead-letter` rejects it without requeue, which the queue routes to
 * its DLQ.
 */
export type Settlement = 'ack' | 'requeue' | 'dead-letter';

export function settle(ch: Channel, msg: ConsumeMessage, how: Settlement, queue: string): void {
  try {
    if (how === 'ack') ch.ack(msg);
    else ch.nack(msg, false, how === 'requeue');
    queueMessagesConsumed().inc({ queue, outcome: how === 'dead-letter' ? 'dead_letter' : how });
  } catch (err) {
    // The channel closed under us; the broker redelivers unacked messages, so nothing is lost.
    log.warn('could not settle a message; it will be redelivered', { how, ...errorFields(err) });
  }
}
