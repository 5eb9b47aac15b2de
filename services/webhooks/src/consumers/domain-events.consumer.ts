import { DOMAIN_EVENTS } from '@social/contracts';
import type { EventEnvelope } from '@social/events';
import type { FanOut } from '../domain/fan-out.use-case';
import { log } from '../logger';

export const WEBHOOK_SOURCE_EVENTS = DOMAIN_EVENTS;

/** Domain events of every service → deliveries to the endpoints that subscribed. */
export function domainEventsHandler(fanOut: FanOut) {
  return async (envelope: EventEnvelope): Promise<void> => {
    const n = await fanOut.execute(envelope);
    if (n > 0) log.info('event fanned out', { eventId: envelope.id, type: envelope.type, endpoints: n });
  };
}
