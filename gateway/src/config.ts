import { commonSpec, DEFAULT_PLAN, loadConfig, mongoDbPrefixSpec, parsePlans, privateKeySpec, type VarSpec } from '@social/config';

export const gatewaySpec = {
  ...commonSpec,
  ...mongoDbPrefixSpec,
  /** The only key that signs tokens for services' HTTP APIs; the admin command line uses it too. */
  jwtPrivateKey: privateKeySpec('gateway'),
  port: { env: 'GATEWAY_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8080 },
  postsUrl: { env: 'POSTS_URL', type: 'string', default: 'http://127.0.0.1:8081' },
  mediaUrl: { env: 'MEDIA_URL', type: 'string', default: 'http://127.0.0.1:8082' },
  competitorsUrl: { env: 'COMPETITORS_URL', type: 'string', default: 'http://127.0.0.1:8083' },
  insightsUrl: { env: 'INSIGHTS_URL', type: 'string', default: 'http://127.0.0.1:8084' },
  webhooksUrl: { env: 'WEBHOOKS_URL', type: 'string', default: 'http://127.0.0.1:8088' },
  keyCacheTtlSeconds: { env: 'KEY_CACHE_TTL_SECONDS', type: 'integer', minimum: 1, maximum: 3600, default: 60 },
  /** In-process key cache in front of Redis; revocations reach it through Redis pub/sub. 0 = off. */
  keyLocalCacheMs: { env: 'KEY_LOCAL_CACHE_MS', type: 'integer', minimum: 0, maximum: 60000, default: 5000 },
  rateLimitRequests: { env: 'RATE_LIMIT_REQUESTS', type: 'integer', minimum: 1, default: 1200 },
  rateLimitWindowSeconds: { env: 'RATE_LIMIT_WINDOW_SECONDS', type: 'integer', minimum: 1, maximum: 3600, default: 60 },
  bodyLimitBytes: { env: 'BODY_LIMIT_BYTES', type: 'integer', minimum: 1024, default: 1048576 },
  /** Upstream timeout; generous because image generation may take 45 s. */
  proxyTimeoutMs: { env: 'PROXY_TIMEOUT_MS', type: 'integer', minimum: 100, default: 120000 },
  /** How long a response to a request with an Idempotency-Key is kept for retries. */
  idempotencyRetentionSeconds: { env: 'IDEMPOTENCY_RETENTION_SECONDS', type: 'integer', minimum: 1, default: 86400 },
} as const satisfies Record<string, VarSpec>;

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env) {
  return { ...loadConfig(gatewaySpec, env), plans: parsePlans(env['PLANS']), defaultPlan: DEFAULT_PLAN };
}

export const gatewayDbName = (cfg: { mongoDbPrefix: string }) => `${cfg.mongoDbPrefix}gateway`;
