import type { VarSpec } from './load-config';

/**
 * Variables every service reads. Defaults match the local machine set up by scripts/infra.sh,
 * so `pnpm start` works without an .env file; production sets every one of them.
 */
export const commonSpec = {
  mongoUrl: { env: 'MONGO_URL', type: 'string', default: 'mongodb://127.0.0.1:27017/' },
  amqpUrl: { env: 'AMQP_URL', type: 'string', default: 'amqp://guest:guest@127.0.0.1:5672' },
  redisUrl: { env: 'REDIS_URL', type: 'string', default: 'redis://127.0.0.1:6379' },
  logLevel: { env: 'LOG_LEVEL', type: 'string', enum: ['error', 'warn', 'info', 'debug'], default: 'info' },
  host: { env: 'HOST', type: 'string', default: '127.0.0.1' },
  shutdownGraceMs: { env: 'SHUTDOWN_GRACE_MS', type: 'integer', minimum: 0, default: 10000 },
} as const satisfies Record<string, VarSpec>;

/** A database name per service; MONGO_DB_PREFIX lets tests run side by side without collisions. */
export const mongoDbPrefixSpec = {
  mongoDbPrefix: { env: 'MONGO_DB_PREFIX', type: 'string', pattern: '^[a-z0-9_]*$', default: 'social_' },
} as const satisfies Record<string, VarSpec>;

/**
 * The private key a process signs its internal tokens with (`<kid>:<base64 PKCS#8 Ed25519>`), one
 * variable per issuer so that each process is given only its own.
 */
export function privateKeySpec<I extends string>(issuer: I) {
  return {
    env: `${issuer.toUpperCase()}_JWT_PRIVATE_KEY` as `${Uppercase<I>}_JWT_PRIVATE_KEY`,
    type: 'string',
    required: true,
    secret: true,
  } as const;
}

/** For services that check internal tokens (their HTTP API or gRPC server). */
export const publicKeysSpec = {
  /**
   * Public keys of every issuer of internal tokens (the gateway, and services for their gRPC calls):
   * `<issuer>:<kid>:<base64 SPKI>` entries. Public, but required: there is no usable default.
   */
  internalJwtPublicKeys: { env: 'INTERNAL_JWT_PUBLIC_KEYS', type: 'string', required: true, minLength: 1 },
} as const satisfies Record<string, VarSpec>;
