import { validationError } from '@social/errors';
import {
  getNetwork,
  type NetworkPostFormat,
  type NetworkPostMetrics,
  type NetworkPostType,
  type PostMetricsResult,
} from '@social/networks';
import type { Account } from './account-directory';
import type { MetricsQuery } from './daily-metrics.use-case';
import { checkRange, dayOfMs, dayStartMs, DAY_MS } from './dates';
import { selectMetrics, servedAt } from './metric-selection';
import { postValue } from './metric-values';
import type { PublishedPost } from './ports';
import { historyPostsOfDay } from './post-history';
import { requireAccount, type SandboxContext, underFailures } from './sandbox.context';
import { notSupported, profileNotFound } from './sandbox.errors';

export const DEFAULT_POST_LIMIT = 50;
export const MAX_POST_LIMIT = 200;

export interface PostMetricsQuery extends MetricsQuery {
  cursor?: string;
  limit?: number;
}

interface Candidate {
  id: string;
  type: NetworkPostType;
  format: NetworkPostFormat;
  caption: string;
  publishedAtMs: number;
  isVideo: boolean;
}

/**
 * Posts published in the range, newest first, each with the requested metrics as observed now:
 * the made-up history of the account plus what was published through the sandbox, whose numbers
 * grow from zero since publishedAt.
 */
export class ReadPostMetrics {
  constructor(private readonly ctx: SandboxContext) {}

  async read(q: PostMetricsQuery): Promise<PostMetricsResult> {
    const ctx = this.ctx;
    const network = getNetwork(q.net);
    if (!network.insights.posts) throw notSupported(`Post insights on ${network.name}`);
    const account = requireAccount(ctx, q.net, q.accountId);
    const { range, problems } = checkRange(q.since, q.until);
    const offset = decodeCursor(q.cursor);
    if (offset === undefined) problems.push({ path: '/query/cursor', message: 'is not a cursor of this API' });
    const limit = q.limit ?? DEFAULT_POST_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_POST_LIMIT) {
      problems.push({ path: '/query/limit', message: `must be an integer from 1 to ${MAX_POST_LIMIT}` });
    }
    if (!range || problems.length > 0) throw validationError(problems);

    return underFailures(ctx, { operation: 'postMetrics', net: q.net, accountId: account.id }, async () => {
      const reader = await ctx.tokens.readerOf(account, q.token);
      if (reader === 'public' && account.kind === 'personal') throw profileNotFound(q.net, account.id);
      const { served, unavailable } = selectMetrics(q.net, 'post', q.metrics, reader);
      const asOf = q.asOfMs ?? ctx.now();
      const fromMs = dayStartMs(range.since);
      const toMs = Math.min(dayStartMs(range.until) + DAY_MS, asOf + 1);

      const candidates = [...historyIn(ctx, account, range.since, range.until, asOf), ...(await publishedIn(ctx, account, fromMs, toMs))];
      candidates.sort((a, b) => b.publishedAtMs - a.publishedAtMs || (a.id < b.id ? -1 : 1));
      const page = candidates.slice(offset!, offset! + limit);
      const key = { seed: ctx.directory.seed, accountId: account.id, stats: account.stats };
      const base = ctx.publicUrl();

      const posts: NetworkPostMetrics[] = page.map((c) => {
        const values: Record<string, number> = {};
        for (const m of served) {
          if (!servedAt(m, asOf)) continue;
          const v = postValue(key, c, m, asOf);
          if (v !== undefined) values[m.code] = v;
        }
        return {
          id: c.id,
          type: c.type,
          format: c.format,
          caption: c.caption,
          url: `${base}/sandbox/${q.net}/p/${encodeURIComponent(c.id)}`,
          picture: c.format === 'TEXT' ? null : `${base}/sandbox/pictures/${encodeURIComponent(c.id)}.svg`,
          publishedAt: new Date(c.publishedAtMs).toISOString(),
          values,
        };
      });
      const next = offset! + limit;
      return { posts, nextCursor: next < candidates.length ? encodeCursor(next) : null, unavailable };
    });
  }
}

function historyIn(ctx: SandboxContext, account: Account, since: number, until: number, asOf: number): Candidate[] {
  const out: Candidate[] = [];
  const last = Math.min(until, dayOfMs(asOf));
  for (let day = Math.max(since, account.stats.createdDay); day <= last; day++) {
    for (const p of historyPostsOfDay(ctx.directory.seed, account.net, account.id, account.stats, day)) {
      if (p.publishedAtMs <= asOf) out.push({ ...p, isVideo: p.format === 'VIDEO' });
    }
  }
  return out;
}

async function publishedIn(ctx: SandboxContext, account: Account, fromMs: number, toMs: number): Promise<Candidate[]> {
  const docs = await ctx.posts.listByAccount(account.net, account.id);
  return docs
    .filter((d) => d.publishedAt.getTime() >= fromMs && d.publishedAt.getTime() < toMs)
    .map((d) => ({
      id: d.id,
      type: d.type === 'STORY' ? 'TEMP' : d.type === 'REEL' ? 'REEL' : 'FEED',
      format: formatOf(d),
      caption: d.caption ?? '',
      publishedAtMs: d.publishedAt.getTime(),
      isVideo: d.media.some((m) => m.mimeType.startsWith('video/')),
    }));
}

function formatOf(d: PublishedPost): NetworkPostFormat {
  if (d.media.length > 1) return 'CAROUSEL';
  if (d.media.length === 0) return 'TEXT';
  return d.media[0]!.mimeType.startsWith('video/') ? 'VIDEO' : 'IMAGE';
}

// Offsets in a stable order (history is deterministic); opaque so the format can change.
function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function decodeCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === '') return 0;
  const m = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : undefined;
}
