import { randomBytes } from 'node:crypto';
import { isDuplicateKeyError } from '@social/mongo';
import { checkPostContent, getNetwork, type NetworkCode, type PostType } from '@social/networks';
import type { PublishedLink, PublishedMedia, PublishedPostDoc } from '../data/published-post.model';
import { sleep } from './failure-injector';
import { fingerprintOf } from './fingerprint';
import { requireAccount, type SandboxContext, underFailures } from './sandbox.context';
import { contentRejected, idempotencyKeyReused, notSupported, postNotFound } from './sandbox.errors';

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
  idempotencyKey: string;
  content: PublishContent;
}

export interface PublishOutcome {
  /** False when the key had been used: the earlier post is returned, nothing new is created. */
  created: boolean;
  networkPostId: string;
  publishedAt: string;
}

/**
 * Publishes once per idempotency key. The unique index on (net, account, key) is what guarantees
 * it: of concurrent requests with one key exactly one insert succeeds and the others answer with
 * its result. A key reused with different content is refused, as payment APIs do.
 * A first publish costs one database write (the insert; no read before it), because benchmarks
 * push thousands of publishes through a single sandbox.
 */
export async function publishPost(ctx: SandboxContext, cmd: PublishCommand): Promise<PublishOutcome> {
  const network = getNetwork(cmd.net);
  if (!network.publishing) throw notSupported(`Publishing to ${network.name}`);
  const account = requireAccount(ctx, cmd.net, cmd.accountId);
  return underFailures(ctx, { operation: 'publish', net: cmd.net, accountId: account.id }, async () => {
    await ctx.tokens.requireOwner(account, cmd.token);
    const fingerprint = fingerprintOf(cmd.content);
    const violations = checkPostContent(cmd.net, cmd.content);
    if (violations.length > 0) throw contentRejected(violations);

    // The network's processing time (set by benchmarks through the admin API).
    await sleep(ctx.failures.publishLatency, ctx.shutdown);
    const doc: PublishedPostDoc = {
      _id: `${network.metricPrefix}_${randomBytes(10).toString('hex')}`,
      net: cmd.net,
      accountId: account.id,
      idempotencyKey: cmd.idempotencyKey,
      fingerprint,
      type: cmd.content.type,
      caption: cmd.content.caption,
      firstComment: cmd.content.firstComment,
      media: cmd.content.media,
      links: cmd.content.links,
      settingsJson: cmd.content.settings === null ? null : JSON.stringify(cmd.content.settings),
      publishedAt: new Date(ctx.now()),
    };
    try {
      await ctx.posts.insert(doc);
    } catch (err) {
      if (isDuplicateKeyError(err)) return replay(ctx, cmd, fingerprint);
      throw err;
    }
    return { created: true, networkPostId: doc._id, publishedAt: doc.publishedAt.toISOString() };
  });
}

async function replay(ctx: SandboxContext, cmd: PublishCommand, fingerprint: string): Promise<PublishOutcome> {
  const doc = await ctx.posts.findByKey(cmd.net, cmd.accountId, cmd.idempotencyKey);
  if (!doc) throw new Error(`post of key ${cmd.idempotencyKey} vanished`);
  if (doc.fingerprint !== fingerprint) throw idempotencyKeyReused(cmd.idempotencyKey);
  await ctx.attempts.recordReplay({ net: cmd.net, accountId: cmd.accountId, idempotencyKey: cmd.idempotencyKey, networkPostId: doc._id });
  return { created: false, networkPostId: doc._id, publishedAt: doc.publishedAt.toISOString() };
}

export interface LookupCommand {
  net: NetworkCode;
  accountId: string;
  token: string | undefined;
  idempotencyKey: string;
}

/** How a caller that lost the answer of a publish learns whether it happened. */
export async function lookupPublished(ctx: SandboxContext, cmd: LookupCommand): Promise<Omit<PublishOutcome, 'created'>> {
  const account = requireAccount(ctx, cmd.net, cmd.accountId);
  return underFailures(ctx, { operation: 'lookupPublished', net: cmd.net, accountId: account.id }, async () => {
    await ctx.tokens.requireOwner(account, cmd.token);
    const doc = await ctx.posts.findByKey(cmd.net, account.id, cmd.idempotencyKey);
    if (!doc) throw postNotFound(cmd.idempotencyKey);
    return { networkPostId: doc._id, publishedAt: doc.publishedAt.toISOString() };
  });
}
