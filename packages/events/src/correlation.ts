import { getContext } from '@social/logger';

/**
 * The correlation id of an event published now: the one of the event being handled (inside a
 * consumer), else the request being served (inside an HTTP or gRPC request, or work resumed for a
 * stored request), else the event's own id. So one id follows a request through every event it causes.
 */
export function correlationIdFor(eventId: string): string {
  const ctx = getContext();
  return ctx.correlationId ?? ctx.requestId ?? eventId;
}
