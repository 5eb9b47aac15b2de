import type { ErrorDetail } from '@social/errors';
import type { EventEnvelope } from './envelope';

// The public types of Broker.consume(), apart so that the consumer set, the delivery handling and
// the invalid-message handling can share them without importing one another.

export interface ConsumeContext {
  queue: string;
  /** Earlier unsuccessful deliveries of this message (the quorum queue's x-delivery-count). */
  deliveryCount: number;
  deliveryLimit: number | undefined;
  /** When this attempt fails, the message is dead-lettered instead of redelivered. */
  isLastAttempt: boolean;
}

export type EventHandler<E extends EventEnvelope = EventEnvelope> = (envelope: E, ctx: ConsumeContext) => Promise<void> | void;

/** A message of the queue that is not a valid envelope of the expected types. */
export interface InvalidMessage {
  /** The body parsed as JSON, or undefined when it is not JSON at all. */
  data: unknown;
  reason: string;
  details: ErrorDetail[];
  messageId: string | undefined;
}

export interface ConsumeOptions {
  prefetch?: number;
  /**
   * Called before an invalid message is dead-lettered, so the consumer can settle whatever the
   * message still identifies. When it throws, the message is requeued (up to the delivery limit)
   * for another try instead.
   */
  onInvalid?: (message: InvalidMessage, ctx: ConsumeContext) => Promise<void>;
}

export interface ConsumerHandle {
  readonly queue: string;
  /** Stops new deliveries, waits for the handlers running now, then closes the channel. */
  cancel(): Promise<void>;
}
