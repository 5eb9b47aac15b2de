import { commonSpec, loadConfig, mongoDbPrefixSpec, privateKeySpec, publicKeysSpec, type VarSpec } from '@social/config';
import { networksSpec } from '@social/networks';

export const insightsSpec = {
  ...commonSpec,
  ...mongoDbPrefixSpec,
  ...publicKeysSpec,
  /** The API and the collector call neighbours as `insights`. */
  jwtPrivateKey: privateKeySpec('insights'),
  ...networksSpec,
  port: { env: 'INSIGHTS_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8084 },
  /** Health and readiness of a collector process (it serves no API). */
  collectorPort: { env: 'INSIGHTS_COLLECTOR_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8087 },
  competitorsGrpcUrl: { env: 'COMPETITORS_GRPC_URL', type: 'string', default: '127.0.0.1:9083' },
  postsGrpcUrl: { env: 'POSTS_GRPC_URL', type: 'string', default: '127.0.0.1:9081' },
  // A neighbour that does not answer within this turns into a 503, never a hanging request.
  neighbourDeadlineMs: { env: 'INSIGHTS_NEIGHBOUR_DEADLINE_MS', type: 'integer', minimum: 50, default: 2000 },
  // Overridable so test runs and side-by-side systems on one broker do not share jobs.
  jobsExchange: { env: 'INSIGHTS_JOBS_EXCHANGE', type: 'string', minLength: 1, default: 'social.profiles' },
  jobsQueue: { env: 'INSIGHTS_JOBS_QUEUE', type: 'string', minLength: 1, default: 'insights.collection' },
  jobsPrefetch: { env: 'INSIGHTS_JOBS_PREFETCH', type: 'integer', minimum: 1, default: 4 },
  backfillDays: { env: 'INSIGHTS_BACKFILL_DAYS', type: 'integer', minimum: 1, maximum: 731, default: 90 },
  refreshIntervalMinutes: {
    env: 'INSIGHTS_REFRESH_INTERVAL_MINUTES',
    type: 'number',
    minimum: 0,
    default: 60,
    description: '0 turns the periodic refresh off',
  },
  refreshDays: { env: 'INSIGHTS_REFRESH_DAYS', type: 'integer', minimum: 1, maximum: 31, default: 2 },
  // Post metrics keep growing for weeks after publishing, so a refresh re-reads recent posts too.
  postRefreshDays: { env: 'INSIGHTS_POST_REFRESH_DAYS', type: 'integer', minimum: 1, maximum: 90, default: 28 },
  networkAttempts: { env: 'INSIGHTS_NETWORK_ATTEMPTS', type: 'integer', minimum: 1, maximum: 20, default: 5 },
  retryBaseMs: { env: 'INSIGHTS_RETRY_BASE_MS', type: 'integer', minimum: 1, default: 500 },
  retryMaxMs: { env: 'INSIGHTS_RETRY_MAX_MS', type: 'integer', minimum: 1, default: 30000 },
  targetLockMs: { env: 'INSIGHTS_TARGET_LOCK_MS', type: 'integer', minimum: 1000, default: 300000 },
} as const satisfies Record<string, VarSpec>;

export type InsightsConfig = ReturnType<typeof loadInsightsConfig>;

export const loadInsightsConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(insightsSpec, env);

export const insightsDbName = (cfg: { mongoDbPrefix: string }) => `${cfg.mongoDbPrefix}insights`;
