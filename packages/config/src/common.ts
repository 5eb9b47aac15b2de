import type { VarSpec } from './load-config';

/**
 * Variables every service reads. Defaults match the local machine set up by scripts/infra.sh,
 * so `pnpm start` works without an .env file; production sets every one of them.
 */
export const commonSpec = {
  mongoUrl: { env: 'MONGO_URL', type: 'string', default: 'mongodb://127.0.0.1:27017/' },
  amqpUrl: { env: 'AMQP_URL', type: 'string', default: 'amqp://guest:guest@127.0.0.1:5672' },
  redisUrl: { env: 'REDIS_URL', type: 'string', default: 'redis://127.0.0.1:6379' },
  internalJwtSecret: {
    env: 'INTERNAL_JWT_SECRET',
    type: 'string',
    minLength: 16,
    default: 'dev-only-internal-secret-change-me',
  },
  logLevel: { env: 'LOG_LEVEL', type: 'string', enum: ['error', 'warn', 'info', 'debug'], default: 'info' },
  host: { env: 'HOST', type: 'string', default: '127.0.0.1' },
  shutdownGraceMs: { env: 'SHUTDOWN_GRACE_MS', type: 'integer', minimum: 0, default: 10000 },
} as const satisfies Record<string, VarSpec>;

/** A database name per service; MONGO_DB_PREFIX lets tests run side by side without collisions. */
export const mongoDbPrefixSpec = {
  mongoDbPrefix: { env: 'MONGO_DB_PREFIX', type: 'string', pattern: '^[a-z0-9_]*$', default: 'social_' },
} as const satisfies Record<string, VarSpec>;
