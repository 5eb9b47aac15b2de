import { createLogger } from '@social/logger';
import type { EventEnvelope } from './envelope';

const log = createLogger('events');

/** Remembers which events one consumer has handled. */
export interface ProcessedEventStore {
  has(eventId: string): Promise<boolean>;
  /** Recording the same event twice is not an error (two deliveries may race). */
  markProcessed(eventId: string, type: string): Promise<void>;
}

/**
 * Runs the handler at most once per envelope id for successful handling: a redelivered or
 * re-published event whose id was already processed is acked without running the handler again.
 * The mark is written after the handler succeeds, so a crash in between runs the handler again:
 * handlers must still tolerate that rare repeat (business keys, upserts).
 */
export function idempotent<E extends EventEnvelope, C>(
  store: ProcessedEventStore,
  handler: (envelope: E, ctx: C) => Promise<void> | void,
): (envelope: E, ctx: C) => Promise<void> {
  return async (envelope, ctx) => {
    if (await store.has(envelope.id)) {
      log.info('event already processed; skipping', { eventId: envelope.id, type: envelope.type });
      return;
    }
    await handler(envelope, ctx);
    await store.markProcessed(envelope.id, envelope.type);
  };
}
