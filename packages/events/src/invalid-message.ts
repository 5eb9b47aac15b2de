import type { Channel, ConsumeMessage } from 'amqplib';
import type { ErrorDetail } from '@social/errors';
import { createLogger, errorFields } from '@social/logger';
import type { ConsumeContext, ConsumeOptions } from './consume-types';
import { settle } from './settle';

const log = createLogger('events');

/**
 * A delivery that is no valid envelope of the queue's types (not JSON, unknown type, schema
 * mismatch) goes to the DLQ: no number of retries makes it valid. The consumer's onInvalid runs
 * first, so it can settle what the message still names; while that fails, the message is requeued
 * instead (settling is worth retrying), and on its last attempt it is dead-lettered anyway.
 */
export async function handleInvalid(
  queue: string,
  onInvalid: ConsumeOptions['onInvalid'],
  ch: Channel,
  msg: ConsumeMessage,
  parsed: { reason: string; details: ErrorDetail[] },
  ctx: ConsumeContext,
): Promise<void> {
  const fields = { queue, messageId: msg.properties.messageId, reason: parsed.reason, details: parsed.details };
  if (onInvalid) {
    let data: unknown;
    try {
      data = JSON.parse(msg.content.toString('utf8'));
    } catch {
      data = undefined;
    }
    try {
      await onInvalid({ data, reason: parsed.reason, details: parsed.details, messageId: msg.properties.messageId }, ctx);
    } catch (err) {
      if (!ctx.isLastAttempt) {
        log.warn('invalid message could not be settled; it will be redelivered', { ...fields, ...errorFields(err) });
        return settle(ch, msg, 'requeue', queue);
      }
      log.error('invalid message could not be settled on its last attempt', { ...fields, ...errorFields(err) });
    }
  }
  log.error('invalid message sent to the dead-letter queue', fields);
  settle(ch, msg, 'dead-letter', queue);
}
