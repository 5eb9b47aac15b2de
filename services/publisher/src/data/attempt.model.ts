import { Schema, type Connection, type Model } from 'mongoose';

export type AttemptState = 'STARTED' | 'PUBLISHED' | 'FAILED' | 'CANCELLED';

/**
 * One publish of one post on one profile at one revision: the exactly-once ledger. `_id` is the
 * job key, which is also the network's idempotency key.
 */
export interface AttemptDoc {
  _id: string;
  workspaceId: string | null;
  postId: string;
  profileId: string;
  revision: number;
  net: string;
  state: AttemptState;
  networkPostId: string | null;
  publishedAt: Date | null;
  error: { code: string; message: string } | null;
  /** The job attempt that last touched it (no $inc: FerretDB loses concurrent increments). */
  attempts: number;
  startedAt: Date;
  updatedAt: Date;
}

const attemptSchema = new Schema<AttemptDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, default: null },
    postId: { type: String, required: true },
    profileId: { type: String, required: true },
    revision: { type: Number, required: true },
    net: { type: String, required: true },
    state: { type: String, required: true },
    networkPostId: { type: String, default: null },
    publishedAt: { type: Date, default: null },
    error: { type: Schema.Types.Mixed, default: null },
    attempts: { type: Number, required: true },
    startedAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'publish_attempts', minimize: false },
);
attemptSchema.index({ postId: 1 });

export const attemptModel = (conn: Connection): Model<AttemptDoc> =>
  (conn.models['Attempt'] as Model<AttemptDoc> | undefined) ?? conn.model<AttemptDoc>('Attempt', attemptSchema);
