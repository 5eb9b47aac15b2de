import { defineEvent, type QueueSpec } from '@social/events';

/**
 * Domain events for integrators: what happened to a workspace's posts, media and competitors. The
 * owning services publish them after the state is written (never blocking or failing the change);
 * the webhooks service consumes them and delivers them to the workspace's endpoints.
 */
export const DOMAIN_EVENTS_EXCHANGE = 'social.events';

/**
 * The webhooks service's inbox. Publishers declare it too (the same arguments), so events are kept
 * while the webhooks service is down or not yet started instead of being unroutable.
 */
export const WEBHOOK_EVENTS_QUEUE = 'webhooks.events';

const id = { type: 'string', minLength: 1 } as const;
const error = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'message'],
  properties: { code: id, message: { type: 'string' } },
} as const;
const time = { type: 'string', format: 'date-time' } as const;

export interface PostPublishedEvent {
  postId: string;
  profileId: string;
  net: string | null;
  networkPostId: string | null;
  publishedAt: string;
  /** The post's version after the change: events of one post are delivered in this order. */
  postVersion: number;
}

export interface PostFailedEvent {
  postId: string;
  profileId: string;
  net: string | null;
  error: { code: string; message: string };
  failedAt: string;
  postVersion: number;
}

export interface PostStageChangedEvent {
  postId: string;
  from: string | null;
  to: string;
  /** The stage operation (`schedule`, `publishNow`, …), `update`, or `publishResult`. */
  operation: string;
  at: string;
  postVersion: number;
}

export interface MediaReadyEvent {
  mediaId: string;
  kind: string | null;
  readyAt: string;
}

export interface MediaFailedEvent {
  mediaId: string;
  error: { code: string; message: string };
  failedAt: string;
}

export interface CompetitorCollectedEvent {
  competitorId: string;
  net: string;
  /** Inclusive YYYY-MM-DD range of days collected. */
  since: string;
  until: string;
  reason: 'backfill' | 'refresh';
  collectedAt: string;
}

const postVersion = { type: 'integer', minimum: 0 } as const;
const nullableId = { type: ['string', 'null'] } as const;

export const postPublishedEvent = defineEvent<PostPublishedEvent>({
  type: 'post.published',
  exchange: DOMAIN_EVENTS_EXCHANGE,
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['postId', 'profileId', 'net', 'networkPostId', 'publishedAt', 'postVersion'],
    properties: { postId: id, profileId: id, net: nullableId, networkPostId: nullableId, publishedAt: time, postVersion },
  },
});

export const postFailedEvent = defineEvent<PostFailedEvent>({
  type: 'post.failed',
  exchange: DOMAIN_EVENTS_EXCHANGE,
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['postId', 'profileId', 'net', 'error', 'failedAt', 'postVersion'],
    properties: { postId: id, profileId: id, net: nullableId, error, failedAt: time, postVersion },
  },
});

export const postStageChangedEvent = defineEvent<PostStageChangedEvent>({
  type: 'post.stage_changed',
  exchange: DOMAIN_EVENTS_EXCHANGE,
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['postId', 'from', 'to', 'operation', 'at', 'postVersion'],
    properties: { postId: id, from: nullableId, to: id, operation: id, at: time, postVersion },
  },
});

export const mediaReadyEvent = defineEvent<MediaReadyEvent>({
  type: 'media.ready',
  exchange: DOMAIN_EVENTS_EXCHANGE,
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['mediaId', 'kind', 'readyAt'],
    properties: { mediaId: id, kind: nullableId, readyAt: time },
  },
});

export const mediaFailedEvent = defineEvent<MediaFailedEvent>({
  type: 'media.failed',
  exchange: DOMAIN_EVENTS_EXCHANGE,
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['mediaId', 'error', 'failedAt'],
    properties: { mediaId: id, error, failedAt: time },
  },
});

export const competitorCollectedEvent = defineEvent<CompetitorCollectedEvent>({
  type: 'competitor.collected',
  exchange: DOMAIN_EVENTS_EXCHANGE,
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['competitorId', 'net', 'since', 'until', 'reason', 'collectedAt'],
    properties: {
      competitorId: id,
      net: id,
      since: { type: 'string', format: 'date' },
      until: { type: 'string', format: 'date' },
      reason: { enum: ['backfill', 'refresh'] },
      collectedAt: time,
    },
  },
});

export const DOMAIN_EVENTS = [
  postPublishedEvent,
  postFailedEvent,
  postStageChangedEvent,
  mediaReadyEvent,
  mediaFailedEvent,
  competitorCollectedEvent,
] as const;

/** The event types an endpoint can subscribe to (the public names). */
export const WEBHOOK_EVENT_TYPES = DOMAIN_EVENTS.map((d) => d.type);

/** The webhooks inbox, declared by the webhooks service and by every publisher of domain events. */
export const webhookEventsQueue = (name: string = WEBHOOK_EVENTS_QUEUE, exchange: string = DOMAIN_EVENTS_EXCHANGE): QueueSpec => ({
  name,
  deliveryLimit: 20,
  // One webhooks replica at a time fans events out, in queue order, so events of one post are
  // stored in the order they were published; the deliveries themselves spread over every replica.
  singleActiveConsumer: true,
  bindings: WEBHOOK_EVENT_TYPES.map((routingKey) => ({ exchange, routingKey })),
});

/** What a publisher of domain events adds to its topology. */
export const domainEventsTopology = (queue = WEBHOOK_EVENTS_QUEUE, exchange = DOMAIN_EVENTS_EXCHANGE) => ({
  exchanges: [{ name: exchange, type: 'topic' as const }],
  queues: [webhookEventsQueue(queue, exchange)],
});
