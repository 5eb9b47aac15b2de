import { counter, histogram } from './registry';

/** Request latencies are mostly milliseconds; proxied uploads and slow networks reach seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Image resizes take well under a second, video probes and transcodes up to minutes. */
const PROCESSING_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/**
 * `route` is the express route pattern (`/v2/posts/:postId`), never the raw path, so the number of
 * series stays bounded; requests no route matched are `unmatched`.
 */
export const httpRequestDuration = () =>
  histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests served, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
  });

/** `service` is the full proto service (`posts.v1.PostsService`), `code` the gRPC status name (`OK`, `NOT_FOUND`). */
export const grpcServerHandling = () =>
  histogram({
    name: 'grpc_server_handling_seconds',
    help: 'gRPC calls handled, by service, method and status code.',
    labelNames: ['service', 'method', 'code'] as const,
    buckets: LATENCY_BUCKETS,
  });

export type ConsumeOutcome = 'ack' | 'requeue' | 'dead_letter';

/** Every settled delivery; `requeue` counts retries to come, `dead_letter` messages given up on. */
export const queueMessagesConsumed = () =>
  counter({
    name: 'queue_messages_consumed_total',
    help: 'Messages taken from a queue, by queue and outcome (ack, requeue, dead_letter).',
    labelNames: ['queue', 'outcome'] as const,
  });

export type PublishConfirm = 'confirmed' | 'failed';

export const queueMessagesPublished = () =>
  counter({
    name: 'queue_messages_published_total',
    help: 'Messages published, by exchange, event type and outcome (confirmed by the broker, or failed).',
    labelNames: ['exchange', 'type', 'outcome'] as const,
  });

/**
 * Every command a process sends to its database (the driver's command monitoring): `db` is the
 * service's database, `command` the command name (find, insert, update, findAndModify, ...). What
 * one unit of work costs the database is the difference of this counter across it.
 */
export const mongoCommands = () =>
  counter({
    name: 'mongo_commands_total',
    help: 'Database commands sent, by database and command name.',
    labelNames: ['db', 'command'] as const,
  });

/**
 * For the publisher: one increment per finished publish attempt of a (post, profile). `net` is the
 * network code; suggested outcomes: published, failed (permanent), retry (retryable error),
 * reconciled (an unknown outcome settled by asking the network), cancelled, stale.
 */
export const publishOutcomes = () =>
  counter({
    name: 'publish_outcomes_total',
    help: 'Publish attempts to social networks, by network and outcome.',
    labelNames: ['net', 'outcome'] as const,
  });

/**
 * For the network sandbox: one increment per post it stored (a publish that created a post).
 * Benchmarks follow a burst by it: on FerretDB even an estimated count reads the whole collection.
 */
export const sandboxPostsStored = () =>
  counter({
    name: 'sandbox_posts_stored_total',
    help: 'Posts the network sandbox stored, by network.',
    labelNames: ['net'] as const,
  });

/**
 * For media workers: `kind` is image or video (or import), `outcome` ok or failed. Use
 * `mediaProcessingDuration().startTimer({ kind })` and call the returned function with `{ outcome }`.
 */
export const mediaProcessingDuration = () =>
  histogram({
    name: 'media_processing_duration_seconds',
    help: 'Time to process one media file, by kind and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    buckets: PROCESSING_BUCKETS,
  });

/**
 * Domain events (webhook sources) a service could not hand to the broker. Emission never fails the
 * user's request; this counter is how an outage that loses events shows.
 */
export const domainEventsDropped = () =>
  counter({
    name: 'domain_events_dropped_total',
    help: 'Domain events not published (broker unavailable or refused), by event type.',
    labelNames: ['type'] as const,
  });
