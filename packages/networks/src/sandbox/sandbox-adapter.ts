import { createHash } from 'node:crypto';
import { type CallContext, errorFromResponse } from '../adapter/classify-http';
import { contentFingerprint } from '../adapter/content-fingerprint';
import { getNetwork } from '../catalog/catalog';
import type { NetworkCode } from '../catalog/network-codes';
import type { PostType } from '../catalog/types';
import type {
  ConnectAccountInput,
  ConnectedAccount,
  DailyMetricsResult,
  LookupPublishedInput,
  MetricsInput,
  NetworkAdapter,
  NetworkProfile,
  PostMetricsInput,
  PostMetricsResult,
  ProfileInfoInput,
  PublishInput,
  PublishMedia,
  PublishResult,
  RecentPostsInput,
  RecentPostsResult,
  SearchProfilesInput,
  SearchProfilesResult,
} from '../adapter/network-adapter';
import { NetworkError, type NetworkOperation } from '../adapter/network-error';
import { type HttpAnswer, type HttpCall, JsonHttpClient } from './json-http-client';

export interface SandboxAdapterOptions {
  baseUrl: string;
  timeoutMs: number;
  maxSockets?: number;
}

const seg = encodeURIComponent;

/** The adapter for services/network-sandbox: the only way the system reaches the sandbox. */
export class SandboxAdapter implements NetworkAdapter {
  private readonly http: JsonHttpClient;

  constructor(opts: SandboxAdapterOptions) {
    this.http = new JsonHttpClient({ baseUrl: opts.baseUrl, timeoutMs: opts.timeoutMs, maxSockets: opts.maxSockets ?? 256 });
  }

  async publish(input: PublishInput): Promise<PublishResult> {
    const ctx = { net: input.net, operation: 'publish' } as const;
    const media = await Promise.all(input.post.media.map(describeMedia));
    const answer = await this.http.call({
      method: 'POST',
      path: `/sandbox/${seg(input.net)}/accounts/${seg(input.accountId)}/posts`,
      headers: { authorization: `Bearer ${input.accessToken}`, 'idempotency-key': input.idempotencyKey },
      body: { ...input.post, media },
      ctx,
    });
    const body = this.expect<{ networkPostId: string; publishedAt: string }>(answer, ctx, ['networkPostId', 'publishedAt']);
    return { networkPostId: body.networkPostId, publishedAt: body.publishedAt, replayed: answer.status === 200 };
  }

  async lookupPublished(input: LookupPublishedInput): Promise<PublishResult | null> {
    const ctx = { net: input.net, operation: 'lookupPublished' } as const;
    // A network without keys has nothing to look up by; callers check publishingTraits first.
    if (getNetwork(input.net).publishing?.idempotency.keys === 'none') {
      throw new NetworkError('REJECTED', `${input.net} keeps no idempotency keys: reconcile with recentPosts`, {
        ...ctx,
        upstreamCode: 'NOT_SUPPORTED',
      });
    }
    const answer = await this.http.call({
      method: 'GET',
      path: `/sandbox/${seg(input.net)}/accounts/${seg(input.accountId)}/posts/by-key/${seg(input.idempotencyKey)}`,
      headers: { authorization: `Bearer ${input.accessToken}` },
      ctx,
    });
    // "No post under this key" is an answer, unlike an unknown account.
    if (answer.status === 404 && errorCodeOf(answer) === 'POST_NOT_FOUND') return null;
    const body = this.expect<{ networkPostId: string; publishedAt: string }>(answer, ctx, ['networkPostId', 'publishedAt']);
    return { networkPostId: body.networkPostId, publishedAt: body.publishedAt };
  }

  async recentPosts(input: RecentPostsInput): Promise<RecentPostsResult> {
    const body = await this.get<{ items: ListedPost[]; nextCursor: string | null }>(
      { net: input.net, operation: 'recentPosts' },
      `/sandbox/${seg(input.net)}/accounts/${seg(input.accountId)}/posts`,
      { since: input.since, cursor: input.cursor, limit: input.limit === undefined ? undefined : String(input.limit) },
      input.accessToken,
      ['items', 'nextCursor'],
    );
    if (!Array.isArray(body.items) || !body.items.every(isListedPost)) {
      throw new NetworkError('TRANSIENT', `${input.net} listed posts in a shape we cannot read`, {
        net: input.net,
        operation: 'recentPosts',
      });
    }
    return {
      items: body.items.map((p) => ({ networkPostId: p.networkPostId, publishedAt: p.publishedAt, fingerprint: fingerprintOfListed(p) })),
      nextCursor: typeof body.nextCursor === 'string' ? body.nextCursor : null,
    };
  }

  async searchProfiles(input: SearchProfilesInput): Promise<SearchProfilesResult> {
    return this.get<SearchProfilesResult>(
      { net: input.net, operation: 'searchProfiles' },
      `/sandbox/${seg(input.net)}/accounts/${seg(input.accountId)}/search`,
      { query: input.query },
      input.accessToken,
      ['items', 'personalAccountMatch'],
    );
  }

  async profileInfo(input: ProfileInfoInput): Promise<NetworkProfile> {
    return this.get<NetworkProfile>(
      { net: input.net, operation: 'profileInfo' },
      `/sandbox/${seg(input.net)}/profiles/${seg(input.profileId)}`,
      {},
      input.accessToken,
      ['id', 'username'],
    );
  }

  async dailyMetrics(input: MetricsInput): Promise<DailyMetricsResult> {
    return this.get<DailyMetricsResult>(
      { net: input.net, operation: 'dailyMetrics' },
      `/sandbox/${seg(input.net)}/accounts/${seg(input.accountId)}/metrics/daily`,
      { since: input.since, until: input.until, metrics: input.metrics.join(',') },
      input.accessToken,
      ['days', 'unavailable'],
    );
  }

  async postMetrics(input: PostMetricsInput): Promise<PostMetricsResult> {
    return this.get<PostMetricsResult>(
      { net: input.net, operation: 'postMetrics' },
      `/sandbox/${seg(input.net)}/accounts/${seg(input.accountId)}/metrics/posts`,
      {
        since: input.since,
        until: input.until,
        metrics: input.metrics.join(','),
        cursor: input.cursor,
        limit: input.limit === undefined ? undefined : String(input.limit),
      },
      input.accessToken,
      ['posts', 'nextCursor', 'unavailable'],
    );
  }

  async connectAccount(input: ConnectAccountInput): Promise<ConnectedAccount> {
    const ctx = { net: input.net, operation: 'connectAccount' } as const;
    const answer = await this.http.call({
      method: 'POST',
      path: `/sandbox/${seg(input.net)}/accounts/${seg(input.accountId)}/tokens`,
      ctx,
    });
    return this.expect<ConnectedAccount>(answer, ctx, ['accessToken', 'profile']);
  }

  async listConnectableAccounts(net: NetworkCode): Promise<NetworkProfile[]> {
    const body = await this.get<{ items: NetworkProfile[] }>(
      { net, operation: 'listConnectableAccounts' },
      `/sandbox/${seg(net)}/accounts`,
      { kind: 'own' },
      undefined,
      ['items'],
    );
    return body.items;
  }

  async close(): Promise<void> {
    this.http.close();
  }

  private async get<T>(
    ctx: CallContext,
    path: string,
    query: HttpCall['query'],
    accessToken: string | undefined,
    required: string[],
  ): Promise<T> {
    const headers: Record<string, string> = accessToken ? { authorization: `Bearer ${accessToken}` } : {};
    const answer = await this.http.call({ method: 'GET', path, query, headers, ctx });
    return this.expect<T>(answer, ctx, required);
  }

  /** A 2xx with the fields we rely on, or the classified error. */
  private expect<T>(answer: HttpAnswer, ctx: CallContext, required: string[]): T {
    if (answer.status < 200 || answer.status > 299) throw errorFromResponse(ctx, answer.status, answer.headers, answer.body);
    const body = answer.body as Record<string, unknown> | undefined;
    if (typeof body !== 'object' || body === null || required.some((k) => !(k in body))) {
      // A success we cannot read: for a publish the post may exist, so the outcome is unknown.
      const kind = ctx.operation === 'publish' ? 'UNKNOWN_OUTCOME' : 'TRANSIENT';
      throw new NetworkError(kind, `${ctx.net} answered ${answer.status} with an unreadable body`, {
        net: ctx.net,
        operation: ctx.operation as NetworkOperation,
        upstreamStatus: answer.status,
      });
    }
    return body as T;
  }
}

/** A post as the sandbox lists it: the fields real networks echo in their post listings. */
interface ListedPost {
  networkPostId: string;
  publishedAt: string;
  type: string;
  caption: string | null;
  firstComment: string | null;
  media: { mimeType: string }[];
  links: { link: string; title?: string | null; description?: string | null }[];
}

function isListedPost(p: unknown): p is ListedPost {
  const o = p as Partial<ListedPost> | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.networkPostId === 'string' &&
    typeof o.publishedAt === 'string' &&
    typeof o.type === 'string' &&
    Array.isArray(o.media) &&
    o.media.every((m) => typeof m?.mimeType === 'string') &&
    Array.isArray(o.links) &&
    o.links.every((l) => typeof l?.link === 'string')
  );
}

function fingerprintOfListed(p: ListedPost): string {
  return contentFingerprint({
    type: p.type as PostType,
    caption: p.caption ?? null,
    firstComment: p.firstComment ?? null,
    media: p.media.map((m) => ({ mimeType: m.mimeType })),
    links: p.links.map((l) => ({ link: l.link, title: l.title ?? null, description: l.description ?? null })),
    settings: null,
  });
}

function errorCodeOf(answer: HttpAnswer): string | undefined {
  const code = (answer.body as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The sandbox records media instead of storing files: a URL as given, or for bytes the size and
 * SHA-256 (what a real network would receive as an upload).
 */
async function describeMedia(m: PublishMedia) {
  const out: Record<string, unknown> = { mimeType: m.mimeType };
  if (m.url) out['url'] = m.url;
  else if (m.fetchBytes) {
    const bytes = await m.fetchBytes();
    out['sha256'] = createHash('sha256').update(bytes).digest('hex');
    out['sizeBytes'] = bytes.byteLength;
  }
  for (const k of ['sizeBytes', 'durationSec', 'width', 'height'] as const) {
    if (m[k] !== undefined && m[k] !== null && out[k] === undefined) out[k] = m[k];
  }
  return out;
}
