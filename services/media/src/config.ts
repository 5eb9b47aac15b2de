import { commonSpec, loadConfig, mongoDbPrefixSpec, type VarSpec } from '@social/config';

export const mediaSpec = {
  ...commonSpec,
  ...mongoDbPrefixSpec,
  port: { env: 'MEDIA_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8082 },
} as const satisfies Record<string, VarSpec>;

export type MediaConfig = ReturnType<typeof loadMediaConfig>;

export const loadMediaConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(mediaSpec, env);

export const mediaDbName = (cfg: { mongoDbPrefix: string }) => `${cfg.mongoDbPrefix}media`;
