import { Schema, type Connection } from 'mongoose';

/**
 * An event still to be published. Kept in a collection of its own so the relay's claims and retries
 * never write the profile and competitor documents that requests change.
 */
export interface OutboxDoc {
  /** The envelope id: a re-publish is a duplicate consumers drop. */
  _id: string;
  kind: 'backfill' | 'removed';
  targetKind: 'profile' | 'competitor';
  targetId: string;
  workspaceId: string;
  net: string;
  networkAccountId: string;
  since: string | null;
  until: string | null;
  correlationId: string | null;
  /** The recording request's trace context (W3C traceparent): the relay's publish continues its trace. */
  traceparent?: string | null;
  attempts: number;
  /** Not before this time (backoff after a failure, or the lease of the relay that claimed it). */
  nextAttemptAt: Date;
  createdAt: Date;
}

const outboxSchema = new Schema<OutboxDoc>(
  {
    _id: { type: String, required: true },
    kind: { type: String, required: true, enum: ['backfill', 'removed'] },
    targetKind: { type: String, required: true, enum: ['profile', 'competitor'] },
    targetId: { type: String, required: true },
    workspaceId: { type: String, required: true },
    net: { type: String, required: true },
    networkAccountId: { type: String, required: true },
    since: { type: String, default: null },
    until: { type: String, default: null },
    correlationId: { type: String, default: null },
    traceparent: { type: String, default: null },
    attempts: { type: Number, required: true },
    nextAttemptAt: { type: Date, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'outbox' },
);

export const outboxModel = (conn: Connection) => (conn.models['Outbox'] as ReturnType<typeof build> | undefined) ?? build(conn);
const build = (conn: Connection) => conn.model<OutboxDoc>('Outbox', outboxSchema);
