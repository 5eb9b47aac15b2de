import { mongoose, type Connection } from '@social/mongo';
import type { StoredTarget } from '../domain/ports';

/** A profile or competitor insights collects, learned from the collection jobs it saw. */
export type TargetDoc = StoredTarget;

const schema = new mongoose.Schema<TargetDoc>(
  {
    _id: { type: String, required: true },
    ws: { type: String, required: true },
    kind: { type: String, required: true },
    targetId: { type: String, required: true },
    net: { type: String, required: true },
    accountId: { type: String, required: true },
    createdAt: { type: Date, required: true },
    lastCollectedAt: { type: Date, default: null },
    lastError: { type: String, default: null },
  },
  { versionKey: false, collection: 'targets' },
);

export const targetModel = (conn: Connection) =>
  (conn.models['Target'] as mongoose.Model<TargetDoc> | undefined) ?? conn.model<TargetDoc>('Target', schema);
