import { commonSpec, loadConfig, mongoDbPrefixSpec, publicKeysSpec, type VarSpec } from '@social/config';

export const webhooksSpec = {
  ...commonSpec,
  ...mongoDbPrefixSpec,
  ...publicKeysSpec,
  port: { env: 'WEBHOOKS_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8088 },
  secretKey: {
    env: 'WEBHOOKS_SECRET_KEY',
    type: 'string',
    required: true,
    secret: true,
    description: 'Secret that encrypts stored webhook signing secrets (AES-256-GCM, key = SHA-256 of it).',
  },
  /**
   * Addresses endpoints may resolve to although they are not public ("127.0.0.1/32"): tests and
   * development only. Empty refuses every private, loopback and reserved address, as media imports do.
   */
  allowCidrs: { env: 'WEBHOOKS_ALLOW_CIDRS', type: 'string', default: '' },
  /** One attempt: connect, send and receive the status line within this. */
  timeoutMs: { env: 'WEBHOOKS_TIMEOUT_MS', type: 'integer', minimum: 100, default: 10000 },
  /**
   * Waits before the 2nd, 3rd, … attempt (one RabbitMQ delay queue per value); the last repeats
   * until the retry window ends. 5 s, 30 s, 2 min, 10 min, 30 min, then hourly.
   */
  retryDelaysMs: {
    env: 'WEBHOOKS_RETRY_DELAYS_MS',
    type: 'string',
    pattern: '^\\d+(,\\d+)*$',
    default: '5000,30000,120000,600000,1800000,3600000',
  },
  /** How long a delivery keeps being retried after its event (24 h). */
  retryWindowMs: { env: 'WEBHOOKS_RETRY_WINDOW_MS', type: 'integer', minimum: 1000, default: 86_400_000 },
  /** Events fanned out at once: each waits for a database write and a broker confirm, so this is high. */
  eventsPrefetch: { env: 'WEBHOOKS_EVENTS_PREFETCH', type: 'integer', minimum: 1, default: 200 },
  /** Attempts in flight per process: receivers are slow (network latency), so this is high. */
  deliveryPrefetch: { env: 'WEBHOOKS_DELIVERY_PREFETCH', type: 'integer', minimum: 1, default: 200 },
  /** How often pending deliveries whose job was lost (a crash between two writes) are re-queued. */
  sweepIntervalMs: { env: 'WEBHOOKS_SWEEP_INTERVAL_MS', type: 'integer', minimum: 100, default: 60_000 },
  sweepGraceMs: { env: 'WEBHOOKS_SWEEP_GRACE_MS', type: 'integer', minimum: 100, default: 120_000 },
  maxEndpoints: { env: 'WEBHOOKS_MAX_ENDPOINTS', type: 'integer', minimum: 1, default: 20 },
  /**
   * After a secret rotation, deliveries are signed with the new and the previous secret for this
   * long (24 h) unless the request says otherwise (`graceSeconds`), so receivers can switch keys.
   */
  secretRotationGraceMs: {
    env: 'WEBHOOKS_SECRET_ROTATION_GRACE_MS',
    type: 'integer',
    minimum: 0,
    maximum: 604_800_000,
    default: 86_400_000,
  },
  /** Delivered and failed deliveries are deleted this many days after they were settled. */
  deliveryRetentionDays: { env: 'WEBHOOKS_DELIVERY_RETENTION_DAYS', type: 'integer', minimum: 1, default: 30 },
  /** How often old deliveries are pruned (FerretDB has no TTL indexes). */
  pruneIntervalMs: { env: 'WEBHOOKS_PRUNE_INTERVAL_MS', type: 'integer', minimum: 100, default: 600_000 },
  /** Deliveries deleted per database call while pruning; at most 100 calls per state and run. */
  pruneBatchSize: { env: 'WEBHOOKS_PRUNE_BATCH_SIZE', type: 'integer', minimum: 1, maximum: 10_000, default: 500 },
} as const satisfies Record<string, VarSpec>;

export type WebhooksConfig = ReturnType<typeof loadWebhooksConfig>;

export const loadWebhooksConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(webhooksSpec, env);

export const webhooksDbName = (cfg: { mongoDbPrefix: string }) => `${cfg.mongoDbPrefix}webhooks`;

export const retryDelays = (cfg: { retryDelaysMs: string }): number[] => cfg.retryDelaysMs.split(',').map(Number);
