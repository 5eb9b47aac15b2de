import { randomUUID } from 'node:crypto';
import { getContext } from '@social/logger';
import type { PendingEvent } from '../data/outbox.fields';

/** A new pending event, due now, remembering the request it came from for log correlation. */
export function pendingEvent(fields: Pick<PendingEvent, 'kind' | 'since' | 'until'>): PendingEvent {
  const ctx = getContext();
  const correlationId = ctx.correlationId ?? ctx.requestId;
  return {
    id: randomUUID(),
    ...fields,
    attempts: 0,
    nextAttemptAt: new Date(),
    ...(correlationId ? { correlationId } : {}),
  };
}
