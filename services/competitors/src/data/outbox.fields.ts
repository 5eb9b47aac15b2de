import { Schema } from 'mongoose';

/**
 * A pending event kept on the document it is about: the state change and "this event must still be
 * published" are one single-document write, which is atomic without transactions (FerretDB has
 * none). The relay publishes it with a broker confirm and only then clears it.
 */
export interface PendingEvent {
  /** The envelope id, fixed when the event is recorded, so a re-publish is a duplicate consumers drop. */
  id: string;
  kind: 'backfill' | 'removed';
  since?: string;
  until?: string;
  attempts: number;
  /** Not before this time (backoff after a failure, or the lease of a relay that claimed it). */
  nextAttemptAt: Date;
  correlationId?: string;
}

export interface WithOutbox {
  /** Equality key of the relay's query (FerretDB pushes down equality only). */
  outboxPending: boolean;
  outbox: PendingEvent | null;
}

export const outboxSchemaFields = {
  outboxPending: { type: Boolean, required: true, default: false },
  outbox: {
    type: new Schema<PendingEvent>(
      {
        id: { type: String, required: true },
        kind: { type: String, required: true, enum: ['backfill', 'removed'] },
        since: { type: String },
        until: { type: String },
        attempts: { type: Number, required: true },
        nextAttemptAt: { type: Date, required: true },
        correlationId: { type: String },
      },
      { _id: false },
    ),
    default: null,
  },
};
