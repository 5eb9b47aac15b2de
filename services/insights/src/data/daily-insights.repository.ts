import type { Connection, mongoose } from '@social/mongo';
import { bulkReplace, DEFAULT_BUCKET_SHARDS, shardOf } from './bucket-shards';
import { monthsBetween, parseDay } from '../domain/dates';
import type { DailyInsightsStore, DayValues } from '../domain/ports';
import { dailyBucketModel, type DailyBucketDoc } from './daily-bucket.model';

export interface DailyMonth {
  target: string;
  /** YYYY-MM */
  month: string;
  days: DayValues[];
}

const bucketId = (target: string, month: string) => `${target}:${month}`;

function encodeDays(days: DayValues[], metrics: string[]): Record<string, (number | null)[]> {
  const out: Record<string, (number | null)[]> = {};
  for (const d of days) out[d.date.slice(8, 10)] = metrics.map((m) => d.values[m] ?? null);
  return out;
}

/** Daily metrics in month buckets (see daily-bucket.model.ts). */
export class DailyInsightsRepository implements DailyInsightsStore {
  constructor(
    private readonly conn: Connection,
    private readonly shards = DEFAULT_BUCKET_SHARDS,
  ) {}

  /** The collection holding a target's buckets. */
  modelOf(target: string): mongoose.Model<DailyBucketDoc> {
    return dailyBucketModel(this.conn, shardOf(target, this.shards));
  }

  /** Every bucket of a target (inspection, tests). */
  async bucketsOf(target: string): Promise<DailyBucketDoc[]> {
    return this.modelOf(target).find({ target }).lean<DailyBucketDoc[]>();
  }

  /**
   * The target's buckets of these months: one lookup by `_id` per month, in parallel. FerretDB
   * applies only equality filters in PostgreSQL and everything else after converting each matching
   * document, so `{target, month: {$in}}` would convert every bucket the target has; per-month
   * lookups scan the (small) shard and convert only what the range needs.
   */
  private async read(target: string, months: string[]): Promise<DailyBucketDoc[]> {
    const model = this.modelOf(target);
    const found = await Promise.all(months.map((month) => model.findOne({ _id: bucketId(target, month) }).lean<DailyBucketDoc>()));
    return found.filter((b): b is DailyBucketDoc => b !== null);
  }

  /**
   * Writes whole days: a day written again replaces the earlier values of that day, so collecting
   * the same range twice leaves the same data. One read and one write per month touched. Callers
   * hold the target's lock, so nothing else changes the bucket's `metrics` in between.
   */
  async putDays(ws: string, target: string, days: DayValues[]): Promise<void> {
    const byMonth = new Map<string, DayValues[]>();
    for (const d of days) {
      const month = d.date.slice(0, 7);
      const list = byMonth.get(month) ?? [];
      list.push(d);
      byMonth.set(month, list);
    }
    for (const [month, list] of byMonth) {
      const _id = bucketId(target, month);
      const current = await this.modelOf(target).findOne({ _id }, { metrics: 1 }).lean<Pick<DailyBucketDoc, 'metrics'>>();
      const metrics = [...(current?.metrics ?? [])];
      const known = new Set(metrics);
      for (const d of list) {
        for (const code of Object.keys(d.values)) {
          if (!known.has(code)) {
            known.add(code);
            metrics.push(code);
          }
        }
      }
      const set: Record<string, unknown> = { ws, target, month, metrics };
      for (const [dd, values] of Object.entries(encodeDays(list, metrics))) set[`days.${dd}`] = values;
      await this.modelOf(target).updateOne({ _id }, { $set: set }, { upsert: true });
    }
  }

  /** Replaces whole month buckets, one round trip per shard (bulk loads, benchmarks); `fresh`: none exists yet. */
  async replaceMonths(ws: string, months: DailyMonth[], fresh = false): Promise<void> {
    if (months.length === 0) return;
    const docs: DailyBucketDoc[] = months.map((m) => {
      const metrics = [...new Set(m.days.flatMap((d) => Object.keys(d.values)))];
      return { _id: bucketId(m.target, m.month), ws, target: m.target, month: m.month, metrics, days: encodeDays(m.days, metrics) };
    });
    await bulkReplace(docs, (target) => this.modelOf(target), fresh);
  }

  /** Days with data in the inclusive range, newest first; one lookup by _id per month, in parallel. */
  async readRange(ws: string, target: string, since: number, until: number): Promise<{ day: number; values: Record<string, number> }[]> {
    const buckets = await this.read(target, monthsBetween(since, until));
    const out: { day: number; values: Record<string, number> }[] = [];
    for (const b of buckets) {
      if (!b || b.ws !== ws) continue;
      for (const [dd, row] of Object.entries(b.days ?? {})) {
        const day = parseDay(`${b.month}-${dd}`);
        if (day === undefined || day < since || day > until || !Array.isArray(row)) continue;
        const values: Record<string, number> = {};
        row.forEach((v, i) => {
          const code = b.metrics[i];
          if (code !== undefined && typeof v === 'number') values[code] = v;
        });
        out.push({ day, values });
      }
    }
    return out.sort((a, b) => b.day - a.day);
  }

  async deleteTarget(target: string): Promise<number> {
    return (await this.modelOf(target).deleteMany({ target })).deletedCount;
  }
}
