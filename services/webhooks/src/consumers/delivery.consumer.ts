import type { EventEnvelope } from '@social/events';
import type { DeliverWebhook } from '../domain/deliver.use-case';

export function deliveryHandler(deliver: DeliverWebhook) {
  return async (envelope: EventEnvelope<{ deliveryId: string; attempt: number; ordered?: boolean }>): Promise<void> => {
    await deliver.execute(envelope.payload.deliveryId, envelope.payload.attempt, envelope.payload.ordered ?? true);
  };
}
