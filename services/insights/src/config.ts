import { commonSpec, loadConfig, mongoDbPrefixSpec, type VarSpec } from '@social/config';

export const insightsSpec = {
  ...commonSpec,
  ...mongoDbPrefixSpec,
  port: { env: 'INSIGHTS_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8084 },
} as const satisfies Record<string, VarSpec>;

export type InsightsConfig = ReturnType<typeof loadInsightsConfig>;

export const loadInsightsConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(insightsSpec, env);

export const insightsDbName = (cfg: { mongoDbPrefix: string }) => `${cfg.mongoDbPrefix}insights`;
