import type { Connection, mongoose } from '@social/mongo';
import { DAY_MS, monthsBetween } from '../domain/dates';
import { bulkReplace, DEFAULT_BUCKET_SHARDS, shardOf } from './bucket-shards';
import { postKey } from './keys';
import type { PostInsightsStore, StoredPost } from '../domain/ports';
import { postBucketModel, type PostBucketDoc } from './post-bucket.model';

export interface PostMonth {
  target: string;
  month: string;
  posts: StoredPost[];
}

const bucketId = (target: string, month: string) => `${target}:${month}`;

/** Post metrics in month buckets by publish month (see post-bucket.model.ts). */
export class PostInsightsRepository implements PostInsightsStore {
  constructor(
    private readonly conn: Connection,
    private readonly shards = DEFAULT_BUCKET_SHARDS,
  ) {}

  /** The collection holding a target's buckets. */
  modelOf(target: string): mongoose.Model<PostBucketDoc> {
    return postBucketModel(this.conn, shardOf(target, this.shards));
  }

  /** Every bucket of a target (inspection, tests). */
  async bucketsOf(target: string): Promise<PostBucketDoc[]> {
    return this.modelOf(target).find({ target }).lean<PostBucketDoc[]>();
  }

  /**
   * The target's buckets of these months: one lookup by `_id` per month, in parallel. FerretDB
   * applies only equality filters in PostgreSQL and everything else after converting each matching
   * document, so `{target, month: {$in}}` would convert every bucket the target has; per-month
   * lookups scan the (small) shard and convert only what the range needs.
   */
  private async read(target: string, months: string[]): Promise<PostBucketDoc[]> {
    const model = this.modelOf(target);
    const found = await Promise.all(months.map((month) => model.findOne({ _id: bucketId(target, month) }).lean<PostBucketDoc>()));
    return found.filter((b): b is PostBucketDoc => b !== null);
  }

  /** Each post replaces its earlier copy (same network id): one write per month touched. */
  async putPosts(ws: string, target: string, posts: StoredPost[]): Promise<void> {
    const byMonth = new Map<string, StoredPost[]>();
    for (const p of posts) {
      const month = p.publishedAt.slice(0, 7);
      const list = byMonth.get(month) ?? [];
      list.push(p);
      byMonth.set(month, list);
    }
    for (const [month, list] of byMonth) {
      const set: Record<string, unknown> = { ws, target, month };
      for (const p of list) set[`posts.${postKey(p.id)}`] = JSON.stringify(p);
      await this.modelOf(target).updateOne({ _id: bucketId(target, month) }, { $set: set }, { upsert: true });
    }
  }

  /** Replaces whole month buckets, one round trip per shard (bulk loads, benchmarks); `fresh`: none exists yet. */
  async replaceMonths(ws: string, months: PostMonth[], fresh = false): Promise<void> {
    if (months.length === 0) return;
    const docs: PostBucketDoc[] = months.map((m) => ({
      _id: bucketId(m.target, m.month),
      ws,
      target: m.target,
      month: m.month,
      posts: Object.fromEntries(m.posts.map((p) => [postKey(p.id), JSON.stringify(p)])),
    }));
    await bulkReplace(docs, (target) => this.modelOf(target), fresh);
  }

  /** Posts published in the inclusive range of days, newest first (ties by id). */
  async readRange(ws: string, target: string, since: number, until: number): Promise<StoredPost[]> {
    const buckets = await this.read(target, monthsBetween(since, until));
    const from = since * DAY_MS;
    const to = (until + 1) * DAY_MS;
    const out: StoredPost[] = [];
    for (const b of buckets) {
      if (!b || b.ws !== ws) continue;
      for (const json of Object.values(b.posts ?? {})) {
        const p = JSON.parse(json) as StoredPost;
        const t = Date.parse(p.publishedAt);
        if (t >= from && t < to) out.push(p);
      }
    }
    return out.sort((a, b) => (a.publishedAt === b.publishedAt ? (a.id < b.id ? -1 : 1) : a.publishedAt < b.publishedAt ? 1 : -1));
  }

  async deleteTarget(target: string): Promise<number> {
    return (await this.modelOf(target).deleteMany({ target })).deletedCount;
  }
}
