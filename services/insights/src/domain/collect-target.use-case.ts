import { AppError } from '@social/errors';
import { markPermanent, PermanentError } from '@social/events';
import { errorFields, type Logger } from '@social/logger';
import { getNetwork, isNetworkCode, isNetworkError, type NetworkAdapter, type NetworkCode } from '@social/networks';
import { dayToIso, monthChunks, todayDay } from './dates';
import {
  targetKey,
  type DailyInsightsStore,
  type Locks,
  type PostInsightsStore,
  type ProfileDirectory,
  type StoredPost,
  type TargetKind,
  type TargetStore,
} from './ports';
import { requestableMetrics } from './metric-selection';
import { withNetworkRetries, type RetryPolicy } from './network-retry';

export interface CollectJob {
  ws: string;
  kind: TargetKind;
  id: string;
  net: string;
  accountId: string;
  reason: 'backfill' | 'refresh';
  since: number;
  until: number;
}

export interface CollectOptions {
  retry: RetryPolicy;
  postRefreshDays: number;
  lockTtlMs: number;
  /** How long a backfill waits for another replica to finish the same target. */
  lockWaitMs: number;
  postPageSize?: number;
}

export type CollectOutcome = { status: 'collected'; days: number; posts: number } | { status: 'skipped'; why: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Collects daily and post metrics of one target for a range of days and stores them by month.
 * Idempotent: a day or a post collected again replaces what was stored. One replica at a time works
 * on a target (a Redis lock); a refresh finding it busy skips, a backfill waits its turn.
 */
export class CollectTarget {
  constructor(
    private readonly adapter: NetworkAdapter,
    private readonly profiles: ProfileDirectory,
    private readonly daily: DailyInsightsStore,
    private readonly posts: PostInsightsStore,
    private readonly targets: TargetStore,
    private readonly locks: Locks,
    private readonly opts: CollectOptions,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async run(job: CollectJob): Promise<CollectOutcome> {
    if (!isNetworkCode(job.net)) throw new PermanentError(`Unknown network ${job.net}.`);
    const network = getNetwork(job.net);
    const key = targetKey(job.kind, job.id);
    const until = Math.min(job.until, todayDay(this.now()));
    if (!network.insights.daily && !network.insights.posts) return { status: 'skipped', why: `${network.name} has no insights` };
    if (job.since > until) return { status: 'skipped', why: 'nothing up to today in the range' };

    const token = await this.acquire(key, job.reason);
    if (!token) return { status: 'skipped', why: 'another collector is working on this target' };
    const started = Date.now();
    try {
      const accessToken = job.kind === 'profile' ? await this.accessToken(job) : undefined;
      const read = { net: job.net, accountId: job.accountId, ...(accessToken ? { accessToken } : {}) };
      const audience = job.kind === 'profile' ? 'own' : 'competitor';
      const fields = { target: key, net: job.net, reason: job.reason };

      let days = 0;
      if (network.insights.daily) {
        const metrics = requestableMetrics(job.net, 'daily', audience).map((m) => m.code);
        const chunks = monthChunks(job.since, until);
        for (const [i, c] of chunks.entries()) {
          const res = await withNetworkRetries({ ...fields, operation: 'dailyMetrics' }, this.opts.retry, this.log, () =>
            this.adapter.dailyMetrics({ ...read, since: dayToIso(c.since), until: dayToIso(c.until), metrics }),
          );
          await this.daily.putDays(job.ws, key, res.days);
          days += res.days.length;
          if (chunks.length > 1)
            this.log.info('collection progress', { ...fields, months: `${i + 1}/${chunks.length}`, month: c.month, days });
        }
      }

      let posts = 0;
      if (network.insights.posts) {
        const metrics = requestableMetrics(job.net, 'post', audience).map((m) => m.code);
        // Post numbers keep growing for weeks, so a refresh re-reads the recent posts as well.
        const since = job.reason === 'refresh' ? Math.min(job.since, until - this.opts.postRefreshDays + 1) : job.since;
        for (const c of monthChunks(since, until)) posts += await this.collectPosts(job, key, read, metrics, c.since, c.until);
      }
      await this.targets.recordOutcome(job.kind, job.id, null);
      this.log.info('collection done', {
        ...fields,
        since: dayToIso(job.since),
        until: dayToIso(until),
        days,
        posts,
        durationMs: Date.now() - started,
      });
      return { status: 'collected', days, posts };
    } catch (err) {
      await this.targets.recordOutcome(job.kind, job.id, (err as Error).message).catch(() => undefined);
      // Refused tokens, missing accounts and rejected requests do not heal by retrying.
      if (isNetworkError(err) && !err.retryable) throw markPermanent(err);
      throw err;
    } finally {
      await this.locks
        .release(`target:${key}`, token)
        .catch((err) => this.log.warn('could not release a target lock', { target: key, ...errorFields(err) }));
    }
  }

  private async collectPosts(
    job: CollectJob,
    key: string,
    read: { net: NetworkCode; accountId: string; accessToken?: string },
    metrics: string[],
    since: number,
    until: number,
  ): Promise<number> {
    const collected: StoredPost[] = [];
    let cursor: string | undefined;
    do {
      const res = await withNetworkRetries({ target: key, net: job.net, operation: 'postMetrics' }, this.opts.retry, this.log, () =>
        this.adapter.postMetrics({
          ...read,
          since: dayToIso(since),
          until: dayToIso(until),
          metrics,
          limit: this.opts.postPageSize ?? 200,
          ...(cursor ? { cursor } : {}),
        }),
      );
      for (const p of res.posts) {
        collected.push({
          id: p.id,
          type: p.type,
          format: p.format,
          caption: p.caption,
          url: p.url,
          picture: p.picture,
          publishedAt: p.publishedAt,
          v: p.values,
        });
      }
      cursor = res.nextCursor ?? undefined;
    } while (cursor);
    await this.posts.putPosts(job.ws, key, collected);
    return collected.length;
  }

  private async accessToken(job: CollectJob): Promise<string> {
    const token = await this.profiles.getAccessToken(job.ws, job.id);
    if (!token) throw new PermanentError(`Profile ${job.id} is not connected any more; nothing to collect with.`);
    return token;
  }

  private async acquire(key: string, reason: CollectJob['reason']): Promise<string | null> {
    const deadline = Date.now() + (reason === 'backfill' ? this.opts.lockWaitMs : 0);
    for (;;) {
      const token = await this.locks.tryAcquire(`target:${key}`, this.opts.lockTtlMs);
      if (token || reason === 'refresh') return token;
      if (Date.now() >= deadline) {
        // Requeued: the replica holding the target may be done by the next delivery.
        throw new AppError('TARGET_BUSY', 503, `Target ${key} is being collected by another replica.`);
      }
      await sleep(250);
    }
  }
}
