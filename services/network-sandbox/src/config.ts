import { commonSpec, loadConfig, mongoDbPrefixSpec, type VarSpec } from '@social/config';

export const sandboxSpec = {
  ...commonSpec,
  ...mongoDbPrefixSpec,
  port: { env: 'NETWORK_SANDBOX_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8090 },
  seed: {
    env: 'SANDBOX_SEED',
    type: 'string',
    minLength: 1,
    default: 'social-sandbox',
    description: 'Makes every account trait, post and metric value; same seed, same world.',
  },
  admin: {
    env: 'SANDBOX_ADMIN',
    type: 'boolean',
    default: false,
    description: 'Mounts /sandbox/admin (failure injection, latency, published posts). Off unless set: pnpm start and the tests set it.',
  },
  maxProcessingMs: {
    env: 'SANDBOX_MAX_PROCESSING_MS',
    type: 'integer',
    minimum: 1,
    description:
      "A publish whose processing (admin latency, a failure rule held before the work) would take longer is abandoned: nothing stored, 504. Default: the network's maxProcessingMs (30000).",
  },
  nodeEnv: { env: 'NODE_ENV', type: 'string', default: 'development' },
  publicUrl: {
    env: 'SANDBOX_PUBLIC_URL',
    type: 'string',
    format: 'uri',
    description: 'Base of picture and post URLs; default http://HOST:PORT of the running sandbox.',
  },
} as const satisfies Record<string, VarSpec>;

export interface SandboxConfig {
  port: number;
  host: string;
  mongoUrl: string;
  dbName: string;
  seed: string;
  /** Failure injection must never be reachable by accident: off unless SANDBOX_ADMIN=true. */
  adminEnabled: boolean;
  production: boolean;
  publicUrl: string | undefined;
  /** Overrides every network's maxProcessingMs (tests make it short); undefined: the catalog's. */
  maxProcessingMs: number | undefined;
  shutdownGraceMs: number;
  logLevel: string;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): SandboxConfig {
  const c = loadConfig(sandboxSpec, env);
  const production = c.nodeEnv === 'production';
  return {
    port: c.port,
    host: c.host,
    mongoUrl: c.mongoUrl,
    dbName: `${c.mongoDbPrefix}network_sandbox`,
    seed: c.seed,
    adminEnabled: c.admin,
    production,
    publicUrl: c.publicUrl?.replace(/\/$/, ''),
    maxProcessingMs: c.maxProcessingMs,
    shutdownGraceMs: c.shutdownGraceMs,
    logLevel: c.logLevel,
  };
}
