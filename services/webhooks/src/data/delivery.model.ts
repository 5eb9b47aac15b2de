import { mongoose, type Connection } from '@social/mongo';

export type DeliveryState = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface DeliveryDoc {
  /** The `webhook-id` header: one per (endpoint, event), the same on every attempt and replay. */
  _id: string;
  workspaceId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** The exact body sent, so every attempt and a replay carry the same bytes. */
  body: string;
  occurredAt: Date;
  /** `<endpointId>:<postId>` for post events: deliveries of one key go out in `orderSeq` order. */
  orderKey: string | null;
  orderSeq: number;
  state: DeliveryState;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  /** Start of the retry window (the first fan-out, or the last replay). */
  windowStart: Date;
  createdAt: Date;
  updatedAt: Date;
}

const schema = new mongoose.Schema<DeliveryDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    endpointId: { type: String, required: true },
    eventId: { type: String, required: true },
    eventType: { type: String, required: true },
    body: { type: String, required: true },
    occurredAt: { type: Date, required: true },
    orderKey: { type: String, default: null },
    orderSeq: { type: Number, required: true },
    state: { type: String, required: true },
    attempts: { type: Number, required: true },
    lastStatusCode: { type: Number, default: null },
    lastError: { type: String, default: null },
    lastAttemptAt: { type: Date, default: null },
    nextAttemptAt: { type: Date, default: null },
    deliveredAt: { type: Date, default: null },
    windowStart: { type: Date, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'webhook_deliveries' },
);
// Equality keys only (FerretDB pushes nothing else down): the log of an endpoint, the deliveries
// of one post key still pending, and the pending set the sweep reads.
schema.index({ workspaceId: 1, endpointId: 1 });
schema.index({ orderKey: 1, state: 1 });
schema.index({ state: 1 });

export const deliveryModel = (conn: Connection) =>
  (conn.models['WebhookDelivery'] as mongoose.Model<DeliveryDoc> | undefined) ?? conn.model<DeliveryDoc>('WebhookDelivery', schema);
