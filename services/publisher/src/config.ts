import { commonSpec, loadConfig, mongoDbPrefixSpec, privateKeySpec, type VarSpec } from '@social/config';
import { networksSpec } from '@social/networks';

export const publisherSpec = {
  ...commonSpec,
  ...mongoDbPrefixSpec,
  jwtPrivateKey: privateKeySpec('publisher'),
  ...networksSpec,
  port: { env: 'PUBLISHER_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8085 },
  postsGrpcUrl: { env: 'POSTS_GRPC_URL', type: 'string', default: '127.0.0.1:9081' },
  mediaGrpcUrl: { env: 'MEDIA_GRPC_URL', type: 'string', default: '127.0.0.1:9082' },
  competitorsGrpcUrl: { env: 'COMPETITORS_GRPC_URL', type: 'string', default: '127.0.0.1:9083' },
  neighbourDeadlineMs: { env: 'PUBLISHER_NEIGHBOUR_DEADLINE_MS', type: 'integer', minimum: 50, default: 5000 },
  // Jobs handled at once by one worker (the consumer prefetch): the network's latency, not CPU,
  // is what a publish mostly waits for. 128 with group commit against 64 with 2-4 commands at once:
  // about 1.4x the throughput of 1,000 posts due at once on a 2-core machine, a quarter of the
  // database commands per publish (README, Benchmark). At 256 the sandbox on the same cores missed
  // the network timeout.
  concurrency: { env: 'PUBLISHER_CONCURRENCY', type: 'integer', minimum: 1, maximum: 1000, default: 128 },
  // Network calls per job before a retryable failure becomes FAILED.
  maxAttempts: { env: 'PUBLISHER_MAX_ATTEMPTS', type: 'integer', minimum: 1, maximum: 50, default: 6 },
  // Backoff between tries (jittered), and the longest wait a network's Retry-After is honoured for.
  retryBaseMs: { env: 'PUBLISHER_RETRY_BASE_MS', type: 'integer', minimum: 1, default: 1000 },
  retryMaxMs: { env: 'PUBLISHER_RETRY_MAX_MS', type: 'integer', minimum: 1, default: 30000 },
  retryAfterMaxMs: { env: 'PUBLISHER_RETRY_AFTER_MAX_MS', type: 'integer', minimum: 0, default: 900000 },
  // After a publish whose outcome is unknown, how long until the network can no longer act on it,
  // so that not finding the post proves it was not created. Default: the network's own processing
  // bound (packages/networks catalog) plus 10 s.
  outcomeSettleMs: { env: 'PUBLISHER_OUTCOME_SETTLE_MS', type: 'integer', minimum: 0 },
  // A first attempt later than this after the due time is not made: FAILED (PUBLISH_TOO_LATE).
  maxLatenessMs: { env: 'PUBLISHER_MAX_LATENESS_MS', type: 'integer', minimum: 0, default: 3600000 },
  // Deliveries of a job that crash its handler before it is dead-lettered (and its profile FAILED).
  jobDeliveryLimit: { env: 'PUBLISHER_JOB_DELIVERY_LIMIT', type: 'integer', minimum: 1, default: 5 },
  credentialsCacheMs: { env: 'PUBLISHER_CREDENTIALS_CACHE_MS', type: 'integer', minimum: 0, default: 30000 },
} as const satisfies Record<string, VarSpec>;

export type PublisherConfig = ReturnType<typeof loadPublisherConfig>;

export const loadPublisherConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(publisherSpec, env);

export const publisherDbName = (cfg: { mongoDbPrefix: string }) => `${cfg.mongoDbPrefix}publisher`;
