import { Schema, type Connection, type Model } from 'mongoose';

export interface LabelDoc {
  _id: string;
  workspaceId: string;
  name: string;
  color: string;
  createdAt: Date;
}

const labelSchema = new Schema<LabelDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    name: { type: String, required: true },
    color: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'labels' },
);
// Every query is scoped by workspace (an equality FerretDB pushes down); the list is ordered by _id.
labelSchema.index({ workspaceId: 1, _id: 1 });

export const labelModel = (conn: Connection) =>
  (conn.models['Label'] as Model<LabelDoc> | undefined) ?? conn.model<LabelDoc>('Label', labelSchema);
