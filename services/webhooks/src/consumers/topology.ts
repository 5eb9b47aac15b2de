import { DOMAIN_EVENTS_EXCHANGE, domainEventsTopology } from '@social/contracts';
import { defineEvent, type Broker, type QueueSpec, type Topology } from '@social/events';
import type { DeliveryJobs } from '../domain/ports';

export const WEBHOOKS_EXCHANGE = 'social.webhooks';
export const DELIVERY_QUEUE = 'webhooks.deliveries';

/** A job: make attempt `attempt` of one delivery (claimed by attempt number, so copies are harmless). */
export const deliveryRequested = defineEvent<{ deliveryId: string; attempt: number; ordered?: boolean }>({
  type: 'webhook.delivery.requested',
  exchange: WEBHOOKS_EXCHANGE,
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['deliveryId', 'attempt'],
    properties: { deliveryId: { type: 'string', minLength: 1 }, attempt: { type: 'integer', minimum: 1 }, ordered: { type: 'boolean' } },
  },
});

/**
 * One delay queue per retry delay, each with that fixed lifetime, dead-lettering back to the
 * delivery queue: one lifetime per queue keeps expiry in order (as the publisher's retries do).
 * The delay is in the name, so changing the delays declares new queues instead of failing on
 * queues declared with other arguments.
 */
export const delayQueueName = (ms: number) => `${DELIVERY_QUEUE}.delay-${ms}ms`;

export function webhooksTopology(delaysMs: number[], deliveryPrefetch: number): Topology {
  const delays: QueueSpec[] = [...new Set(delaysMs)].map((ms) => ({
    name: delayQueueName(ms),
    bindings: [],
    messageTtlMs: ms,
    deadLetterTo: { exchange: WEBHOOKS_EXCHANGE, routingKey: deliveryRequested.type },
  }));
  const events = domainEventsTopology();
  return {
    exchanges: [...events.exchanges, { name: WEBHOOKS_EXCHANGE, type: 'topic' }],
    queues: [
      ...events.queues,
      {
        name: DELIVERY_QUEUE,
        prefetch: deliveryPrefetch,
        deliveryLimit: 20,
        bindings: [{ exchange: WEBHOOKS_EXCHANGE, routingKey: deliveryRequested.type }],
      },
      ...delays,
    ],
  };
}

export { DOMAIN_EVENTS_EXCHANGE };

export class BrokerDeliveryJobs implements DeliveryJobs {
  constructor(private readonly broker: Broker) {}

  async enqueue(
    deliveryId: string,
    attempt: number,
    workspaceId: string,
    opts: { delayMs?: number; ordered?: boolean } = {},
  ): Promise<void> {
    const { delayMs } = opts;
    const payload = { deliveryId, attempt, ordered: opts.ordered ?? true };
    if (!delayMs) {
      await this.broker.publish(deliveryRequested, payload, { workspaceId });
      return;
    }
    await this.broker.publish(deliveryRequested, payload, { workspaceId, exchange: '', routingKey: delayQueueName(delayMs) });
  }
}
