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
  // Publishing: how often due posts are looked for, how long a dispatch claim lasts before another
  // replica may take it over, and when the watchdog asks about profiles still PENDING.
  dispatchTickMs: { env: 'POSTS_DISPATCH_TICK_MS', type: 'integer', minimum: 50, default: 1000 },
  dispatchLeaseMs: { env: 'POSTS_DISPATCH_LEASE_MS', type: 'integer', minimum: 100, default: 30000 },
  dispatchConcurrency: { env: 'POSTS_DISPATCH_CONCURRENCY', type: 'integer', minimum: 1, default: 32 },
  // Tasks are claimed this long before they are due and sent at the due time itself; keep it above
  // the tick (every due task is then seen ahead at least once) and well below the lease.
  dispatchLookAheadMs: { env: 'POSTS_DISPATCH_LOOKAHEAD_MS', type: 'integer', minimum: 0, maximum: 60000, default: 2000 },
  dispatchLookbackMinutes: { env: 'POSTS_DISPATCH_LOOKBACK_MINUTES', type: 'integer', minimum: 3, default: 360 },
  dispatchSweepMs: { env: 'POSTS_DISPATCH_SWEEP_MS', type: 'integer', minimum: 1000, default: 300000 },
  watchdogTimeoutMs: { env: 'POSTS_PUBLISH_WATCHDOG_MS', type: 'integer', minimum: 100, default: 600000 },
  watchdogTickMs: { env: 'POSTS_WATCHDOG_TICK_MS', type: 'integer', minimum: 50, default: 5000 },
  watchdogMaxRounds: { env: 'POSTS_WATCHDOG_MAX_ROUNDS', type: 'integer', minimum: 1, default: 3 },
  resultsPrefetch: { env: 'POSTS_RESULTS_PREFETCH', type: 'integer', minimum: 1, default: 32 },
} as const satisfies Record<string, VarSpec>;

export type PostsConfig = ReturnType<typeof loadPostsConfig>;

export function loadPostsConfig(env: NodeJS.ProcessEnv = process.env) {
  const cfg = loadConfig(postsSpec, env);
  // A task claimed ahead must still hold its claim at its due time, or another replica takes it over.
  if (cfg.dispatchLookAheadMs >= cfg.dispatchLeaseMs) {
    throw new ConfigError('POSTS_DISPATCH_LOOKAHEAD_MS', `must be shorter than POSTS_DISPATCH_LEASE_MS (${cfg.dispatchLeaseMs} ms)`);
  }
  return cfg;
}

export const postsDbName = (cfg: { mongoDbPrefix: string }) => `${cfg.mongoDbPrefix}posts`;
