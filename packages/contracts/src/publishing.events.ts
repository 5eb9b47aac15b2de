import { createHash } from 'node:crypto';
import { defineEvent } from '@social/events';

/**
 * Publishing: the posts service dispatches one job per (post, profile, revision) when a post is
 * due; publisher workers publish it on the network and report the outcome back.
 */
export const PUBLISHING_EXCHANGE = 'social.publishing';

/** Consumed by publisher workers (quorum, DLQ `<queue>.dlq`, delivery limit). */
export const PUBLISH_JOBS_QUEUE = 'publisher.publish-jobs';
/**
 * Jobs waiting to be tried again: one queue per delay, each with that fixed message lifetime, whose
 * expired messages are dead-lettered back to PUBLISH_JOBS_QUEUE. One lifetime per queue means every
 * message expires in order, so a long wait never holds back a short one. A job that must wait
 * longer than the longest delay goes round again until its `notBefore`.
 */
export const PUBLISH_DELAY_QUEUES = [
  { name: 'publisher.publish-jobs.delay-1s', delayMs: 1_000 },
  { name: 'publisher.publish-jobs.delay-5s', delayMs: 5_000 },
  { name: 'publisher.publish-jobs.delay-30s', delayMs: 30_000 },
  { name: 'publisher.publish-jobs.delay-2m', delayMs: 120_000 },
  { name: 'publisher.publish-jobs.delay-10m', delayMs: 600_000 },
] as const;
/** Consumed by the posts service. */
export const PUBLISH_RESULTS_QUEUE = 'posts.publish-results';

const id = { type: 'string', minLength: 1 } as const;
const nullableText = { type: ['string', 'null'] } as const;

/** What one profile's network receives of a post at a revision, as the dispatcher read it. */
export interface PublishContent {
  type: string;
  caption: string | null;
  firstComment: string | null;
  mediaLibIds: string[];
  links: { link: string; title: string | null; description: string | null; mediaLibId: string | null }[];
  /** The network object of the post with its defaults (spec 2.2). */
  settings: Record<string, unknown>;
}

export interface PublishRequested {
  postId: string;
  profileId: string;
  /** The post's revision when it was dispatched; once dispatched it cannot change. */
  revision: number;
  net: string;
  /** When the post was due (ISO); lateness is measured from it. */
  dueAt: string;
  /**
   * The content to publish, read by the dispatcher when it claimed the post: a dispatched post
   * cannot be edited, so this is what the post says. Absent in jobs of older dispatchers, which the
   * publisher reads from posts.
   */
  content?: PublishContent;
  /** 1 for the first try; a delayed retry carries the next number. */
  attempt?: number;
  /** A delayed job is not run before this time (ISO); it waits in the delay queues until then. */
  notBefore?: string;
  /**
   * 'reconcile' (the posts watchdog, and the publisher itself after an unknown outcome): settle the
   * profile from the ledger and the network; publish only when nothing may have been published.
   */
  mode?: 'publish' | 'reconcile';
}

/** A job: publish one post on one profile at one revision. */
export const publishRequested = defineEvent<PublishRequested>({
  type: 'post.publish.requested',
  exchange: PUBLISHING_EXCHANGE,
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['postId', 'profileId', 'revision', 'net', 'dueAt'],
    properties: {
      postId: id,
      profileId: id,
      revision: { type: 'integer', minimum: 0 },
      net: id,
      dueAt: { type: 'string', format: 'date-time' },
      content: {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'caption', 'firstComment', 'mediaLibIds', 'links', 'settings'],
        properties: {
          type: id,
          caption: nullableText,
          firstComment: nullableText,
          mediaLibIds: { type: 'array', maxItems: 100, items: id },
          links: {
            type: 'array',
            maxItems: 20,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['link', 'title', 'description', 'mediaLibId'],
              properties: { link: id, title: nullableText, description: nullableText, mediaLibId: { type: ['string', 'null'] } },
            },
          },
          settings: { type: 'object' },
        },
      },
      attempt: { type: 'integer', minimum: 1 },
      notBefore: { type: 'string', format: 'date-time' },
      mode: { enum: ['publish', 'reconcile'] },
    },
  },
});

/**
 * PUBLISHED, FAILED and CANCELLED are final for the revision. UNKNOWN is not: a publish was sent
 * and the network has not told whether it holds the post; the profile stays PENDING and the
 * publisher keeps reconciling until the network proves one or the other.
 */
export type PublishOutcome = 'PUBLISHED' | 'FAILED' | 'CANCELLED' | 'UNKNOWN';

export interface PublishCompleted {
  postId: string;
  profileId: string;
  revision: number;
  status: PublishOutcome;
  networkPostId?: string;
  publishedAt?: string;
  /** Why it failed (FAILED), was cancelled, or is not settled (UNKNOWN); codes are namespaced strings like NETWORK_REJECTED. */
  error?: { code: string; message: string };
  /** Network calls made for it. */
  attempts: number;
}

/** The outcome of one job; consumers apply it idempotently by (post, profile, revision). */
export const publishCompleted = defineEvent<PublishCompleted>({
  type: 'post.publish.completed',
  exchange: PUBLISHING_EXCHANGE,
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['postId', 'profileId', 'revision', 'status', 'attempts'],
    properties: {
      postId: id,
      profileId: id,
      revision: { type: 'integer', minimum: 0 },
      status: { enum: ['PUBLISHED', 'FAILED', 'CANCELLED', 'UNKNOWN'] },
      networkPostId: id,
      publishedAt: { type: 'string', format: 'date-time' },
      error: {
        type: 'object',
        additionalProperties: false,
        required: ['code', 'message'],
        properties: { code: id, message: { type: 'string' } },
      },
      attempts: { type: 'integer', minimum: 0 },
    },
  },
});

/**
 * The ledger key of a (post, profile): every attempt to publish that post on that profile, of any
 * revision, goes through one ledger entry, so a post can exist at most once per profile on the
 * network. Also sent as the network-side idempotency key, which only some networks keep.
 */
export const publishKey = (job: { postId: string; profileId: string }): string => `${job.postId}:${job.profileId}`;

/** The name of one job (a revision of a (post, profile)) in logs and event ids. */
export const publishJobName = (job: { postId: string; profileId: string; revision: number }): string =>
  `${job.postId}:${job.profileId}:${job.revision}`;

/**
 * A name-based (v5-style) UUID: the same name always gives the same envelope id, so copies of one
 * job or one result carry one id and idempotent consumers see them as one event.
 */
export function deterministicEventId(name: string): string {
  const h = createHash('sha1').update('social.publishing:').update(name).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

export const publishJobEventId = (job: { postId: string; profileId: string; revision: number }, attempt = 1): string =>
  deterministicEventId(`job:${publishJobName(job)}:${attempt}`);

export const reconcileJobEventId = (job: { postId: string; profileId: string; revision: number }, round = 1): string =>
  deterministicEventId(`reconcile:${publishJobName(job)}:${round}`);

export const publishResultEventId = (job: { postId: string; profileId: string; revision: number }, status: PublishOutcome): string =>
  deterministicEventId(`result:${publishJobName(job)}:${status}`);
