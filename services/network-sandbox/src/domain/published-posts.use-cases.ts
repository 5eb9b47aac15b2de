import { randomBytes } from 'node:crypto';
import { checkPostContent, getNetwork, type NetworkCode, type PostType } from '@social/networks';
import { delayOf, failsBefore, latencyBefore, raiseInjected, sleep } from './failure-injector';
import { fingerprintOf } from './fingerprint';
import type { PublishedLink, PublishedMedia, PublishedPost } from './ports';
import { requireAccount, type SandboxContext, underFailures } from './sandbox.context';
import { contentRejected, idempotencyKeyReused, notSupported, postNotFound, processingAbandoned } from './sandbox.errors';

export interface PublishContent {
  type: PostType;
  caption: string | null;
  firstComment: string | null;
  media: PublishedMedia[];
  links: PublishedLink[];
  settings: Record<string, unknown> | null;
}

export interface PublishCommand {
  net: NetworkCode;
  accountId: string;
  token: string | undefined;
  /** The Idempotency-Key header: a key on networks that keep keys, stored as clientKey everywhere. */
  idempotencyKey: string;
  content: PublishContent;
}

export interface PublishOutcome {
  /** False when the key was held within its window: the earlier post is returned, nothing new is created. */
  created: boolean;
  networkPostId: string;
  publishedAt: string;
}

/** Tries of the insert / release loop of one keyed publish; each lost round means another request won. */
const MAX_KEY_ROUNDS = 5;

/**
 * Publishes as the network does. On a network without keys every request creates a post; on one
 * that keeps keys for a window, the same key within the window answers with the post it created (or
 * 409 for other content, as payment APIs do), and after the window creates a new one.
 *
 * In time: a failure rule acting before the work answers after its latency and stores nothing; then
 * the network works (the admin publish latency plus a rule's latency) and stores the post; a
 * server_error after the work is answered although the post is stored; a `slow` rule holds the
 * answer back. Work that would take longer than the network's maxProcessingMs is abandoned when
 * that bound passes: nothing stored, 504.
 *
 * A first publish costs one database write (the insert; no read before it), because benchmarks
 * push thousands of publishes through a single sandbox.
 */
export class PublishedPostsUseCases {
  constructor(private readonly ctx: SandboxContext) {}

  async publish(cmd: PublishCommand): Promise<PublishOutcome> {
    const ctx = this.ctx;
    const network = getNetwork(cmd.net);
    if (!network.publishing) throw notSupported(`Publishing to ${network.name}`);
    const account = requireAccount(ctx, cmd.net, cmd.accountId);
    const maxMs = ctx.maxProcessingMs(cmd.net);
    const rule = ctx.failures.take({ operation: 'publish', net: cmd.net, accountId: account.id });
    if (failsBefore(rule)) {
      await work(ctx, latencyBefore(rule), maxMs);
      raiseInjected(rule, 'before');
    }

    await ctx.tokens.requireOwner(account, cmd.token);
    const violations = checkPostContent(cmd.net, cmd.content);
    if (violations.length > 0) throw contentRejected(violations);
    const fingerprint = fingerprintOf(cmd.content);
    await work(ctx, ctx.failures.publishLatency + latencyBefore(rule), maxMs);

    const now = ctx.now();
    const doc: PublishedPost = {
      id: `${network.metricPrefix}_${randomBytes(10).toString('hex')}`,
      net: cmd.net,
      accountId: account.id,
      clientKey: cmd.idempotencyKey,
      fingerprint,
      type: cmd.content.type,
      caption: cmd.content.caption,
      firstComment: cmd.content.firstComment,
      media: cmd.content.media,
      links: cmd.content.links,
      settingsJson: cmd.content.settings === null ? null : JSON.stringify(cmd.content.settings),
      publishedAt: new Date(now),
    };
    const idempotency = network.publishing.idempotency;
    let outcome: PublishOutcome;
    if (idempotency.keys === 'window') outcome = await storeOncePerKey(ctx, doc, idempotency.windowMs);
    else {
      await ctx.posts.insert(doc);
      outcome = createdFrom(doc);
    }

    raiseInjected(rule, 'after');
    await sleep(delayOf(rule), ctx.shutdown);
    return outcome;
  }

  /**
   * How a caller that lost the answer of a publish learns whether it happened, on a network that
   * keeps keys: the post holding the key within its window. Networks without keys have no such call.
   */
  async lookup(cmd: LookupCommand): Promise<Omit<PublishOutcome, 'created'>> {
    const ctx = this.ctx;
    const network = getNetwork(cmd.net);
    const idempotency = network.publishing?.idempotency;
    if (idempotency?.keys !== 'window') throw notSupported(`Looking posts up by idempotency key on ${network.name}`);
    const account = requireAccount(ctx, cmd.net, cmd.accountId);
    return underFailures(ctx, { operation: 'lookupPublished', net: cmd.net, accountId: account.id }, async () => {
      await ctx.tokens.requireOwner(account, cmd.token);
      const holder = await ctx.posts.findByHeldKey(heldKeyOf(cmd.net, account.id, cmd.idempotencyKey));
      if (!holder || !withinWindow(ctx, holder, idempotency.windowMs)) throw postNotFound(cmd.idempotencyKey);
      return { networkPostId: holder.id, publishedAt: holder.publishedAt.toISOString() };
    });
  }
}

/** The network working for `ms`; past the bound it gives up when the bound passes. */
async function work(ctx: SandboxContext, ms: number, maxMs: number): Promise<void> {
  if (ms > maxMs) {
    await sleep(maxMs, ctx.shutdown);
    throw processingAbandoned(maxMs);
  }
  await sleep(ms, ctx.shutdown);
}

/**
 * Of concurrent requests with one key exactly one insert holds it (unique index on heldKey); the
 * others find the holder. A holder older than the window is made to let go (compare-and-set, so one
 * request does it) and the insert is tried again; whoever loses that round finds the new holder.
 */
async function storeOncePerKey(ctx: SandboxContext, doc: PublishedPost, windowMs: number): Promise<PublishOutcome> {
  const heldKey = heldKeyOf(doc.net, doc.accountId, doc.clientKey);
  for (let round = 0; round < MAX_KEY_ROUNDS; round++) {
    if (await ctx.posts.insert(doc, heldKey)) return createdFrom(doc);
    const holder = await ctx.posts.findByHeldKey(heldKey);
    if (!holder) continue; // let go of meanwhile: try again
    if (withinWindow(ctx, holder, windowMs)) return replay(ctx, doc, holder);
    await ctx.posts.releaseKey(holder.id, heldKey);
  }
  throw new Error(`idempotency key ${doc.clientKey} stayed contended for ${MAX_KEY_ROUNDS} rounds`);
}

async function replay(ctx: SandboxContext, doc: PublishedPost, holder: PublishedPost): Promise<PublishOutcome> {
  if (holder.fingerprint !== doc.fingerprint) throw idempotencyKeyReused(doc.clientKey);
  await ctx.attempts.recordReplay({ net: doc.net, accountId: doc.accountId, clientKey: doc.clientKey, networkPostId: holder.id });
  return { created: false, networkPostId: holder.id, publishedAt: holder.publishedAt.toISOString() };
}

function createdFrom(doc: PublishedPost): PublishOutcome {
  return { created: true, networkPostId: doc.id, publishedAt: doc.publishedAt.toISOString() };
}

function withinWindow(ctx: SandboxContext, holder: PublishedPost, windowMs: number): boolean {
  return holder.publishedAt.getTime() + windowMs > ctx.now();
}

/** One value per (network, account, key); JSON keeps the parts apart whatever characters they hold. */
function heldKeyOf(net: string, accountId: string, key: string): string {
  return JSON.stringify([net, accountId, key]);
}

export interface LookupCommand {
  net: NetworkCode;
  accountId: string;
  token: string | undefined;
  idempotencyKey: string;
}
