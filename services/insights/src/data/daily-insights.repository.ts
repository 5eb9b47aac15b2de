import type { Connection, mongoose } from '@social/mongo';
import { monthsBetween, parseDay } from '../domain/dates';
import { dailyBucketModel, type DailyBucketDoc } from './daily-bucket.model';

export interface DayValues {
  /** YYYY-MM-DD */
  date: string;
  values: Record<string, number>;
}

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
export class DailyInsightsRepository {
  private readonly model: mongoose.Model<DailyBucketDoc>;

  constructor(conn: Connection) {
    this.model = dailyBucketModel(conn);
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
      const current = await this.model.findOne({ _id }, { metrics: 1 }).lean();
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
      await this.model.updateOne({ _id }, { $set: set }, { upsert: true });
    }
  }

  /** Replaces whole month buckets in one round trip (bulk loads, benchmarks). */
  async replaceMonths(ws: string, months: DailyMonth[]): Promise<void> {
    if (months.length === 0) return;
    const docs = months.map((m) => {
      const metrics = [...new Set(m.days.flatMap((d) => Object.keys(d.values)))];
      return { _id: bucketId(m.target, m.month), ws, target: m.target, month: m.month, metrics, days: encodeDays(m.days, metrics) };
    });
    await this.model.bulkWrite(
      docs.map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } })),
      { ordered: false },
    );
  }

  /** Days with data in the inclusive range, newest first; one lookup by _id per month, in parallel. */
  async readRange(ws: string, target: string, since: number, until: number): Promise<{ day: number; values: Record<string, number> }[]> {
    const months = monthsBetween(since, until);
    const buckets = await Promise.all(months.map((month) => this.model.findOne({ _id: bucketId(target, month) }).lean()));
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
    return (await this.model.deleteMany({ target })).deletedCount;
  }
}

