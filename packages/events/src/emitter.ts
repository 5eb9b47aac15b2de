import { createLogger, errorFields } from '@social/logger';
import { domainEventsDropped } from '@social/metrics';
import type { Broker } from './broker';
import type { EventDefinition } from './envelope';

const log = createLogger('events:emit');

/** Sends events whose loss must not fail the change that caused them (webhook sources). */
export interface EventEmitter {
  emit<T>(def: EventDefinition<T>, payload: T, workspaceId: string): void;
}

/**
 * Fire and forget, after the state write: emit() returns at once; a broker that is down or refuses
 * is logged and counted (`domain_events_dropped_total`), never thrown at the caller. Events of one
 * process go out on one confirm channel, so they reach the broker in the order they were emitted.
 */
export class BrokerEventEmitter implements EventEmitter {
  constructor(
    private readonly broker: Pick<Broker, 'publish'>,
    private readonly timeoutMs = 10_000,
  ) {}

  emit<T>(def: EventDefinition<T>, payload: T, workspaceId: string): void {
    let sent: Promise<unknown>;
    try {
      sent = this.broker.publish(def, payload, { workspaceId, timeoutMs: this.timeoutMs });
    } catch (err) {
      sent = Promise.reject(err);
    }
    sent.catch((err: unknown) => {
      domainEventsDropped().inc({ type: def.type });
      log.warn('domain event not published', { type: def.type, workspaceId, ...errorFields(err) });
    });
  }
}

/** For processes and tests that emit nothing. */
export const noEvents: EventEmitter = { emit: () => undefined };
