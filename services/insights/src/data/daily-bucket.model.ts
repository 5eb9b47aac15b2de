import { mongoose, type Connection } from '@social/mongo';

/**
 * Daily metrics of one target for one calendar month: `_id` `<kind>:<id>:<yyyy-mm>`, so a 30-day
 * query is one or two lookups by _id (FerretDB pushes down equality only; `$in` would scan).
 * Values are stored compactly: `metrics` names the columns once, and each day is an array of
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
  { versionKey: false, collection: 'daily_buckets', minimize: false, strict: false },
);
// Dropping a target's data filters on it by equality.
schema.index({ target: 1 });

export const dailyBucketModel = (conn: Connection) =>
  (conn.models['DailyBucket'] as mongoose.Model<DailyBucketDoc> | undefined) ?? conn.model<DailyBucketDoc>('DailyBucket', schema);
