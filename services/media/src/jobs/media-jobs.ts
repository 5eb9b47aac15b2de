import { domainEventsTopology } from '@social/contracts';
import { defineEvent, type Broker, type Topology } from '@social/events';
import type { ProcessingQueue } from '../domain/ports';

export const MEDIA_EXCHANGE = 'media';
export const PROCESSING_QUEUE = 'media.processing';

/** A confirmed upload or an accepted import to fetch, measure and preview. */
export const mediaProcessingRequested = defineEvent<{ mediaId: string }>({
  type: 'media.processing.requested',
  exchange: MEDIA_EXCHANGE,
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['mediaId'],
    properties: { mediaId: { type: 'string', minLength: 1 } },
  },
});

export const mediaTopology: Topology = {
  exchanges: [{ name: MEDIA_EXCHANGE, type: 'topic' }, ...domainEventsTopology().exchanges],
  queues: [
    // Processing a big video takes a while: a small prefetch spreads jobs over the workers.
    { name: PROCESSING_QUEUE, bindings: [{ exchange: MEDIA_EXCHANGE, routingKey: 'media.processing.*' }], deliveryLimit: 5, prefetch: 2 },
    ...domainEventsTopology().queues,
  ],
};

export class BrokerProcessingQueue implements ProcessingQueue {
  constructor(private readonly broker: Broker) {}

  async enqueue(job: { mediaId: string; workspaceId: string }): Promise<void> {
    // The media id is the business key: a second job for the same media is a no-op in the worker.
    await this.broker.publish(mediaProcessingRequested, { mediaId: job.mediaId }, { workspaceId: job.workspaceId });
  }
}
