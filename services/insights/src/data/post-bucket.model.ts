import { mongoose, type Connection } from '@social/mongo';
import { shardSuffix } from './bucket-shards';

/**
 * The posts one target published in one calendar month, with their metrics: `_id`
 * `<kind>:<id>:<yyyy-mm>`, posts keyed by their (escaped) network id so re-collecting a post
 * replaces it. Each post is stored as a JSON string: FerretDB's cost of reading a document grows
 * with its number of fields (a month of 800 posts as objects takes about ten times as long as the
 * same posts as strings), and nothing ever filters inside a post.
 */
export interface PostBucketDoc {
  _id: string;
  ws: string;
  target: string;
  month: string;
  /** Escaped network post id → JSON of a StoredPost. */
  posts: Record<string, string>;
}

const schema = new mongoose.Schema<PostBucketDoc>(
  {
    _id: { type: String, required: true },
    ws: { type: String, required: true },
    target: { type: String, required: true },
    month: { type: String, required: true },
    posts: { type: mongoose.Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, minimize: false, strict: false },
);
schema.index({ target: 1 });

/** The model of one shard's collection (`post_buckets_<nn>`, see bucket-shards.ts). */
export function postBucketModel(conn: Connection, shard: number): mongoose.Model<PostBucketDoc> {
  const name = `PostBucket_${shardSuffix(shard)}`;
  return (
    (conn.models[name] as mongoose.Model<PostBucketDoc> | undefined) ??
    conn.model<PostBucketDoc>(name, schema, `post_buckets_${shardSuffix(shard)}`)
  );
}
