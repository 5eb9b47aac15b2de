import { mongoose, type Connection } from '@social/mongo';

export interface StoredPost {
  id: string;
  type: string;
  format: string;
  caption: string;
  url: string;
  picture: string | null;
  publishedAt: string;
  /** Metric code → value, as last collected. */
  v: Record<string, number>;
}

/**
 * The posts one target published in one calendar month, with their metrics: `_id`
 * `<kind>:<id>:<yyyy-mm>`, posts keyed by their (escaped) network id so re-collecting a post
 * replaces it. A query over a range reads one document per month of the range.
 */
export interface PostBucketDoc {
  _id: string;
  ws: string;
  target: string;
  month: string;
  posts: Record<string, StoredPost>;
}

const schema = new mongoose.Schema<PostBucketDoc>(
  {
    _id: { type: String, required: true },
    ws: { type: String, required: true },
    target: { type: String, required: true },
    month: { type: String, required: true },
    posts: { type: mongoose.Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, collection: 'post_buckets', minimize: false, strict: false },
);
schema.index({ target: 1 });

export const postBucketModel = (conn: Connection) =>
  (conn.models['PostBucket'] as mongoose.Model<PostBucketDoc> | undefined) ?? conn.model<PostBucketDoc>('PostBucket', schema);
