import { PROFILES_EXCHANGE, PUBLISH_DELAY_QUEUES, PUBLISH_JOBS_QUEUE, PUBLISHING_EXCHANGE, publishRequested } from '@social/contracts';
import type { Topology } from '@social/events';

/**
 * The publisher's queues: jobs (quorum, DLQ, delivery limit) and the delay queues, one per delay,
 * whose expired messages go back to the jobs queue through the default exchange. The results
 * queue belongs to posts, which declares it; profile.auth.revoked is consumed by competitors.
 */
export function publisherTopology(jobDeliveryLimit: number): Topology {
  return {
    exchanges: [
      { name: PUBLISHING_EXCHANGE, type: 'topic' },
      { name: PROFILES_EXCHANGE, type: 'topic' },
    ],
    queues: [
      {
        name: PUBLISH_JOBS_QUEUE,
        deliveryLimit: jobDeliveryLimit,
        bindings: [{ exchange: PUBLISHING_EXCHANGE, routingKey: publishRequested.type }],
      },
      ...PUBLISH_DELAY_QUEUES.map((q) => ({
        name: q.name,
        bindings: [],
        messageTtlMs: q.delayMs,
        deadLetterTo: { exchange: '', routingKey: PUBLISH_JOBS_QUEUE },
      })),
    ],
  };
}
