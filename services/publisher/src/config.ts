import { commonSpec, loadConfig, mongoDbPrefixSpec, type VarSpec } from '@social/config';

export const publisherSpec = {
  ...commonSpec,
  ...mongoDbPrefixSpec,
  port: { env: 'PUBLISHER_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8085 },
} as const satisfies Record<string, VarSpec>;

export type PublisherConfig = ReturnType<typeof loadPublisherConfig>;

export const loadPublisherConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(publisherSpec, env);

export const publisherDbName = (cfg: { mongoDbPrefix: string }) => `${cfg.mongoDbPrefix}publisher`;
