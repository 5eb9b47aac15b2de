import { commonSpec, DEFAULT_PLAN, loadConfig, mongoDbPrefixSpec, parsePlans, publicKeysSpec, type VarSpec } from '@social/config';
import { PROFILES_EXCHANGE } from '@social/contracts';
import { networksSpec } from '@social/networks';

export const competitorsSpec = {
  ...commonSpec,
  ...mongoDbPrefixSpec,
  ...publicKeysSpec,
  ...networksSpec,
  port: { env: 'COMPETITORS_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8083 },
  grpcPort: { env: 'COMPETITORS_GRPC_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 9083 },
  backfillDays: {
    env: 'COLLECTION_BACKFILL_DAYS',
    type: 'integer',
    minimum: 1,
    maximum: 731,
    default: 90,
    description: 'Days of history collected when a profile is connected or a competitor added.',
  },
  tokenKey: {
    env: 'PROFILE_TOKEN_KEY',
    type: 'string',
    required: true,
    secret: true,
    description: 'Secret that encrypts stored network access tokens (AES-256-GCM, key = SHA-256 of it).',
  },
  profilesExchange: {
    env: 'PROFILES_EXCHANGE',
    type: 'string',
    minLength: 1,
    default: PROFILES_EXCHANGE,
    description: 'Topic exchange of profile events and collection jobs; tests use one of their own.',
  },
  eventsQueue: {
    env: 'COMPETITORS_EVENTS_QUEUE',
    type: 'string',
    minLength: 1,
    default: 'competitors.profile-events',
  },
  outboxIntervalMs: {
    env: 'OUTBOX_INTERVAL_MS',
    type: 'integer',
    minimum: 50,
    default: 1000,
    description: 'How often pending collection jobs and removal events are (re)published.',
  },
} as const satisfies Record<string, VarSpec>;

export function loadCompetitorsConfig(env: NodeJS.ProcessEnv = process.env) {
  return { ...loadConfig(competitorsSpec, env), plans: parsePlans(env['PLANS']), defaultPlan: DEFAULT_PLAN };
}

export type CompetitorsConfig = ReturnType<typeof loadCompetitorsConfig>;

export const competitorsDbName = (cfg: { mongoDbPrefix: string }) => `${cfg.mongoDbPrefix}competitors`;
