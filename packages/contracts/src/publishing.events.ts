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
 * No consumer: a job waiting for its retry sits here with a per-message expiration, then is
 * dead-lettered back to PUBLISH_JOBS_QUEUE (through the default exchange).
 */
export const PUBLISH_RETRY_QUEUE = 'publisher.publish-jobs.retry';
/** Consumed by the posts service. */
export const PUBLISH_RESULTS_QUEUE = 'posts.publish-results';

const id = { type: 'string', minLength: 1 } as const;

export interface PublishRequested {
  postId: string;
  profileId: string;
  /** The post's revision when it was planned; a job for an older revision is stale. */
  revision: number;
  net: string;
  /** When the post was due (ISO); lateness is measured from it. */
  dueAt: string;
  /** 1 for the first try; a delayed retry carries the next number. */
  attempt?: number;
  /**
   * 'reconcile' (the posts watchdog): do not publish late; settle the job from the ledger and the
   * network (found → PUBLISHED, else FAILED) so the profile does not stay PENDING.
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
      attempt: { type: 'integer', minimum: 1 },
      mode: { enum: ['publish', 'reconcile'] },
    },
  },
});

export type PublishOutcome = 'PUBLISHED' | 'FAILED' | 'CANCELLED';

export interface PublishCompleted {
  postId: string;
  profileId: string;
  revision: number;
  status: PublishOutcome;
  networkPostId?: string;
  publishedAt?: string;
  /** Why it failed (FAILED) or was cancelled; codes are namespaced strings like NETWORK_REJECTED. */
  error?: { code: string; message: string };
  /** Network calls made for it. */
  attempts: number;
}

/** The final outcome of one job; consumers apply it idempotently by (post, profile, revision). */
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
      status: { enum: ['PUBLISHED', 'FAILED', 'CANCELLED'] },
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
 * The business key of a job: the publisher's ledger key and the network-side idempotency key, so
 * every copy of one job (re-dispatch, redelivery, retry) can create at most one network post.
 */
export const publishJobKey = (job: { postId: string; profileId: string; revision: number }): string =>
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
  deterministicEventId(`job:${publishJobKey(job)}:${attempt}`);

export const reconcileJobEventId = (job: { postId: string; profileId: string; revision: number }, round = 1): string =>
  deterministicEventId(`reconcile:${publishJobKey(job)}:${round}`);

export const publishResultEventId = (job: { postId: string; profileId: string; revision: number }, status: PublishOutcome): string =>
  deterministicEventId(`result:${publishJobKey(job)}:${status}`);
