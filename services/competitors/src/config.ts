import { commonSpec, loadConfig, mongoDbPrefixSpec, type VarSpec } from '@social/config';

export const competitorsSpec = {
  ...commonSpec,
  ...mongoDbPrefixSpec,
  port: { env: 'COMPETITORS_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8083 },
} as const satisfies Record<string, VarSpec>;

export type CompetitorsConfig = ReturnType<typeof loadCompetitorsConfig>;

export const loadCompetitorsConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(competitorsSpec, env);

export const competitorsDbName = (cfg: { mongoDbPrefix: string }) => `${cfg.mongoDbPrefix}competitors`;
