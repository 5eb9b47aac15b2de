import { mongoose, type Connection } from '@social/mongo';
import { shardSuffix } from './bucket-shards';

/**
 * Daily metrics of one target for one calendar month: `_id` `<kind>:<id>:<yyyy-mm>`. A query reads
 * one bucket by `_id` (one month) or the target's buckets by `target` (equality filters, the only
 * ones FerretDB pushes down), in the target's shard collection (bucket-shards.ts). Values are stored compactly: `metrics` names the columns once, and each day is an array of
 * values in that order (null: no value that day). New metrics are only ever appended to
 * `metrics`, so arrays written earlier keep their meaning.
 */
export interface DailyBucketDoc {
  _id: string;
  ws: string;
  target: string;
  month: string;
  metrics: string[];
  /** Day of month `01`..`31` → values aligned with `metrics`. */
  days: Record<string, (number | null)[]>;
}

const schema = new mongoose.Schema<DailyBucketDoc>(
  {
    _id: { type: String, required: true },
    ws: { type: String, required: true },
    target: { type: String, required: true },
    month: { type: String, required: true },
    metrics: { type: [String], default: [] },
    days: { type: mongoose.Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, minimize: false, strict: false },
);
// Dropping a target's data filters on it by equality.
schema.index({ target: 1 });

/** The model of one shard's collection (`daily_buckets_<nn>`, see bucket-shards.ts). */
export function dailyBucketModel(conn: Connection, shard: number): mongoose.Model<DailyBucketDoc> {
  const name = `DailyBucket_${shardSuffix(shard)}`;
  return (
    (conn.models[name] as mongoose.Model<DailyBucketDoc> | undefined) ??
    conn.model<DailyBucketDoc>(name, schema, `daily_buckets_${shardSuffix(shard)}`)
  );
}
