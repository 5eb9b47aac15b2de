import { type ErrorDetail, validationError } from '@social/errors';
import { getNetwork, type NetworkCode, type PostType } from '@social/networks';
import type { Account } from './account-directory';
import { dayOfMs } from './dates';
import { type HistoryPost, historyPostsOfDay } from './post-history';
import type { ListedPostRecord, ListingPosition } from './ports';
import { requireAccount, type SandboxContext, underFailures } from './sandbox.context';
import { notSupported } from './sandbox.errors';

export const DEFAULT_RECENT_LIMIT = 50;
export const MAX_RECENT_LIMIT = 100;

export interface RecentPostsQuery {
  net: NetworkCode;
  accountId: string;
  token: string | undefined;
  since: string | undefined;
  cursor: string | undefined;
  limit: string | undefined;
}

/** A post as the network lists it: what real listings echo, never the request's key or settings. */
export interface ListedPost {
  networkPostId: string;
  publishedAt: string;
  type: PostType;
  caption: string | null;
  firstComment: string | null;
  media: { mimeType: string }[];
  links: { link: string; title: string | null; description: string | null }[];
}

export interface RecentPostsPage {
  items: ListedPost[];
  nextCursor: string | null;
}

interface Entry {
  publishedAtMs: number;
  post: ListedPost;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The account's posts published at or after `since`, newest first (ties by id), as real networks
 * list them: what was published through the API and the account's generated history alike, so a
 * caller reconciling a publish has to pick its post out of a realistic feed. Paged by an opaque
 * cursor (the position of the last post of the page).
 */
export class ListRecentPosts {
  constructor(private readonly ctx: SandboxContext) {}

  async list(q: RecentPostsQuery): Promise<RecentPostsPage> {
    const ctx = this.ctx;
    const network = getNetwork(q.net);
    if (!network.publishing) throw notSupported(`Listing posts on ${network.name}`);
    const account = requireAccount(ctx, q.net, q.accountId);
    const problems: ErrorDetail[] = [];
    const sinceMs = q.since !== undefined && ISO_DATE_TIME.test(q.since) ? Date.parse(q.since) : Number.NaN;
    if (Number.isNaN(sinceMs)) problems.push({ path: '/query/since', message: 'must be an ISO date-time, e.g. 2026-01-01T00:00:00Z' });
    const limit = q.limit === undefined ? DEFAULT_RECENT_LIMIT : /^\d{1,3}$/.test(q.limit) ? Number(q.limit) : 0;
    if (limit < 1 || limit > MAX_RECENT_LIMIT)
      problems.push({ path: '/query/limit', message: `must be an integer from 1 to ${MAX_RECENT_LIMIT}` });
    const before = decodeCursor(q.cursor);
    if (before === null) problems.push({ path: '/query/cursor', message: 'is not a cursor of this API' });
    if (problems.length > 0) throw validationError(problems);

    return underFailures(ctx, { operation: 'recentPosts', net: q.net, accountId: account.id }, async () => {
      await ctx.tokens.requireOwner(account, q.token);
      // One more than a page from each source tells whether another page follows. Nothing exists
      // after the sandbox's now (posts made while its clock was shifted forward wait for it).
      const now = ctx.now();
      const stored = await ctx.posts.listRecent(account.net, account.id, {
        sinceMs,
        untilMs: now,
        before: before ?? undefined,
        limit: limit + 1,
      });
      const upToMs = Math.min(now, before?.publishedAtMs ?? Number.POSITIVE_INFINITY);
      const entries = [...stored.map(fromStored), ...historyBetween(ctx, account, sinceMs, upToMs, before ?? undefined)];
      entries.sort((a, b) => b.publishedAtMs - a.publishedAtMs || (a.post.networkPostId < b.post.networkPostId ? 1 : -1));
      const page = entries.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map((e) => e.post),
        nextCursor:
          entries.length > limit && last ? encodeCursor({ publishedAtMs: last.publishedAtMs, id: last.post.networkPostId }) : null,
      };
    });
  }
}

function fromStored(d: ListedPostRecord): Entry {
  return {
    publishedAtMs: d.publishedAt.getTime(),
    post: {
      networkPostId: d.id,
      publishedAt: d.publishedAt.toISOString(),
      type: d.type as PostType,
      caption: d.caption ?? null,
      firstComment: d.firstComment ?? null,
      media: (d.media ?? []).map((m) => ({ mimeType: m.mimeType })),
      links: (d.links ?? []).map((l) => ({ link: l.link, title: l.title ?? null, description: l.description ?? null })),
    },
  };
}

/** The generated history in [sinceMs, upToMs], after `before`; ads are not posts of the feed. */
function historyBetween(
  ctx: SandboxContext,
  account: Account,
  sinceMs: number,
  upToMs: number,
  before: ListingPosition | undefined,
): Entry[] {
  const out: Entry[] = [];
  const storyCaptions = getNetwork(account.net).publishing?.storyCaptions ?? false;
  for (let day = Math.max(dayOfMs(sinceMs), account.stats.createdDay); day <= dayOfMs(upToMs); day++) {
    for (const h of historyPostsOfDay(ctx.directory.seed, account.net, account.id, account.stats, day)) {
      if (h.type === 'ADS' || h.publishedAtMs < sinceMs || h.publishedAtMs > upToMs) continue;
      if (before && !(h.publishedAtMs < before.publishedAtMs || h.id < before.id)) continue;
      out.push({ publishedAtMs: h.publishedAtMs, post: listedHistory(h, storyCaptions) });
    }
  }
  return out;
}

function listedHistory(h: HistoryPost, storyCaptions: boolean): ListedPost {
  const type: PostType = h.type === 'TEMP' ? 'STORY' : h.type === 'REEL' ? 'REEL' : h.format === 'TEXT' ? 'STATUS' : 'MEDIA';
  const media =
    h.format === 'TEXT'
      ? []
      : h.format === 'VIDEO'
        ? [{ mimeType: 'video/mp4' }]
        : h.format === 'CAROUSEL'
          ? Array.from({ length: 3 }, () => ({ mimeType: 'image/jpeg' }))
          : [{ mimeType: 'image/jpeg' }];
  return {
    networkPostId: h.id,
    publishedAt: new Date(h.publishedAtMs).toISOString(),
    type,
    caption: type === 'STORY' && !storyCaptions ? null : h.caption,
    firstComment: null,
    media,
    links: [],
  };
}

// Opaque so the format can change; the position survives posts published meanwhile (they are newer).
function encodeCursor(p: ListingPosition): string {
  return Buffer.from(JSON.stringify([p.publishedAtMs, p.id])).toString('base64url');
}

/** undefined: no cursor (first page); null: not a cursor of ours. */
function decodeCursor(cursor: string | undefined): ListingPosition | undefined | null {
  if (cursor === undefined || cursor === '') return undefined;
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === 'string' && v[1].length > 0) {
      return { publishedAtMs: v[0] as number, id: v[1] };
    }
  } catch {
    // falls through: not ours
  }
  return null;
}
