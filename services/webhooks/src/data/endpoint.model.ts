import { mongoose, type Connection } from '@social/mongo';

export interface EndpointDoc {
  _id: string;
  workspaceId: string;
  url: string;
  eventTypes: string[];
  description: string | null;
  /**
   * `whsec_<base64>`, stored encrypted (AtRestCipher, `v1:…`); kept because every delivery is signed
   * with it. Rows of versions before encryption hold it in clear until start-up encrypts them.
   */
  secret: string;
  /** The secret before the last rotation (encrypted the same way); signs beside `secret` until `previousSecretExpiresAt`. */
  previousSecret?: string | null;
  previousSecretExpiresAt?: Date | null;
  createdAt: Date;
}

const schema = new mongoose.Schema<EndpointDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    url: { type: String, required: true },
    eventTypes: { type: [String], required: true },
    description: { type: String, default: null },
    secret: { type: String, required: true },
    previousSecret: { type: String, default: null },
    previousSecretExpiresAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'webhook_endpoints' },
);
// Fan-out reads a workspace's endpoints by equality (pushed down by FerretDB).
schema.index({ workspaceId: 1, _id: 1 });

export const endpointModel = (conn: Connection) =>
  (conn.models['WebhookEndpoint'] as mongoose.Model<EndpointDoc> | undefined) ?? conn.model<EndpointDoc>('WebhookEndpoint', schema);
