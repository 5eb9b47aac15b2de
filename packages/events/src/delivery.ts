import type { Channel, ConsumeMessage } from 'amqplib';
import { createLogger, errorFields, runWithContext } from '@social/logger';
import type { ConsumeContext, ConsumeOptions, EventHandler } from './consume-types';
import { parseEnvelope, type EventDefinition } from './envelope';
import { handleInvalid } from './invalid-message';
import { isPermanentError } from './permanent-error';
import { settle, type Settlement } from './settle';
import { inConsumeSpan, markFailed } from './tracing';

const log = createLogger('events');

/** What handling one delivery needs to know about its consumer. */
export interface DeliveryTarget {
  queue: string;
  defs: Map<string, EventDefinition>;
  handler: EventHandler;
  onInvalid: ConsumeOptions['onInvalid'];
  deliveryLimit: number | undefined;
}

export type FailureKind = 'permanent' | 'last-attempt' | 'retry';

/** The retry decision: a permanent error cannot succeed later, and the last attempt has no later. */
export function classifyFailure(err: unknown, ctx: Pick<ConsumeContext, 'isLastAttempt'>): FailureKind {
  if (isPermanentError(err)) return 'permanent';
  return ctx.isLastAttempt ? 'last-attempt' : 'retry';
}

const FAILURES: Record<FailureKind, { settle: Exclude<Settlement, 'ack'>; level: 'error' | 'warn'; message: string }> = {
  permanent: { settle: 'dead-letter', level: 'error', message: 'handler failed permanently; dead-lettering' },
  'last-attempt': { settle: 'dead-letter', level: 'error', message: 'handler failed on the last attempt; dead-lettering' },
  retry: { settle: 'requeue', level: 'warn', message: 'handler failed; the message will be redelivered' },
};

/**
 * Handles one delivery with a manual ack: the handler runs in the consume span that continues the
 * publisher's trace, and under the envelope's correlation id as the log context. Success acks; a
 * permanent error, or a failure on the last attempt the queue allows, dead-letters; any other
 * failure requeues for another attempt.
 */
export async function handleDelivery(c: DeliveryTarget, ch: Channel, msg: ConsumeMessage): Promise<void> {
  const deliveryCount = Number(msg.properties.headers?.['x-delivery-count'] ?? 0);
  const ctx: ConsumeContext = {
    queue: c.queue,
    deliveryCount,
    deliveryLimit: c.deliveryLimit,
    isLastAttempt: c.deliveryLimit !== undefined && deliveryCount >= c.deliveryLimit,
  };
  const parsed = parseEnvelope(msg.content, c.defs);
  if (!parsed.ok) return handleInvalid(c.queue, c.onInvalid, ch, msg, parsed, ctx);
  const envelope = parsed.envelope;
  const logContext = {
    correlationId: envelope.correlationId,
    requestId: envelope.correlationId,
    workspaceId: envelope.workspaceId ?? undefined,
  };
  const message = {
    type: envelope.type,
    exchange: msg.fields.exchange,
    routingKey: msg.fields.routingKey,
    messageId: envelope.id,
    correlationId: envelope.correlationId,
    queue: c.queue,
  };
  await inConsumeSpan(msg.properties.headers, message, () =>
    runWithContext(logContext, async () => {
      const fields = { queue: c.queue, eventId: envelope.id, type: envelope.type, deliveryCount };
      try {
        await c.handler(envelope, ctx);
        settle(ch, msg, 'ack', c.queue);
      } catch (err) {
        markFailed(err);
        const failure = FAILURES[classifyFailure(err, ctx)];
        log[failure.level](failure.message, { ...fields, ...errorFields(err) });
        settle(ch, msg, failure.settle, c.queue);
      }
    }),
  );
}
