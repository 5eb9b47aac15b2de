import { commonSpec, ConfigError, loadConfig, mongoDbPrefixSpec, privateKeySpec, publicKeysSpec, type VarSpec } from '@social/config';

export const postsSpec = {
  ...commonSpec,
  ...mongoDbPrefixSpec,
  ...publicKeysSpec,
  jwtPrivateKey: privateKeySpec('posts'),
  port: { env: 'POSTS_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8081 },
  grpcPort: { env: 'POSTS_GRPC_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 9081 },
  mediaGrpcUrl: { env: 'MEDIA_GRPC_URL', type: 'string', default: '127.0.0.1:9082' },
  competitorsGrpcUrl: { env: 'COMPETITORS_GRPC_URL', type: 'string', default: '127.0.0.1:9083' },
  // A neighbour that does not answer within this turns into a 503/504, never a hanging request.
  neighbourDeadlineMs: { env: 'POSTS_NEIGHBOUR_DEADLINE_MS', type: 'integer', minimum: 50, default: 2000 },
  // Posts kept in the in-memory lists of all workspaces together (a few KB each).
  listCacheEntries: { env: 'POSTS_LIST_CACHE_ENTRIES', type: 'integer', minimum: 0, default: 100000 },
  // Publishing: how often due posts are looked for, how long before its due time a post is
  // claimed (from then on it is being published and cannot be changed; its jobs leave at the due
  // time), how long before that it is listed (so the claim is on time), how many are dispatched at
  // once, when the watchdog first asks about profiles still PENDING and how far apart its questions
  // may grow.
  dispatchTickMs: { env: 'POSTS_DISPATCH_TICK_MS', type: 'integer', minimum: 50, default: 1000 },
  dispatchClaimLeadMs: { env: 'POSTS_DISPATCH_CLAIM_LEAD_MS', type: 'integer', minimum: 0, maximum: 60000, default: 5000 },
  dispatchLookAheadMs: { env: 'POSTS_DISPATCH_LOOKAHEAD_MS', type: 'integer', minimum: 0, maximum: 60000, default: 2000 },
  dispatchConcurrency: { env: 'POSTS_DISPATCH_CONCURRENCY', type: 'integer', minimum: 1, default: 200 },
  dispatchBatch: { env: 'POSTS_DISPATCH_BATCH', type: 'integer', minimum: 1, maximum: 1000, default: 50 },
  // Only for the very first scan of a database (then a stored cursor says where to look from).
  dispatchLookbackMinutes: { env: 'POSTS_DISPATCH_LOOKBACK_MINUTES', type: 'integer', minimum: 3, default: 360 },
  watchdogTimeoutMs: { env: 'POSTS_PUBLISH_WATCHDOG_MS', type: 'integer', minimum: 100, default: 600000 },
  watchdogTickMs: { env: 'POSTS_WATCHDOG_TICK_MS', type: 'integer', minimum: 50, default: 5000 },
  watchdogMaxIntervalMs: { env: 'POSTS_WATCHDOG_MAX_INTERVAL_MS', type: 'integer', minimum: 100, default: 1800000 },
  resultsPrefetch: { env: 'POSTS_RESULTS_PREFETCH', type: 'integer', minimum: 1, default: 32 },
} as const satisfies Record<string, VarSpec>;

export type PostsConfig = ReturnType<typeof loadPostsConfig>;

export function loadPostsConfig(env: NodeJS.ProcessEnv = process.env) {
  const cfg = loadConfig(postsSpec, env);
  if (cfg.watchdogMaxIntervalMs < cfg.watchdogTimeoutMs) {
    throw new ConfigError(
      'POSTS_WATCHDOG_MAX_INTERVAL_MS',
      `must not be shorter than POSTS_PUBLISH_WATCHDOG_MS (${cfg.watchdogTimeoutMs} ms)`,
    );
  }
  return cfg;
}

export const postsDbName = (cfg: { mongoDbPrefix: string }) => `${cfg.mongoDbPrefix}posts`;
