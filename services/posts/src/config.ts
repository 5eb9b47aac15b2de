import { commonSpec, loadConfig, mongoDbPrefixSpec, type VarSpec } from '@social/config';

export const postsSpec = {
  ...commonSpec,
  ...mongoDbPrefixSpec,
  port: { env: 'POSTS_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8081 },
} as const satisfies Record<string, VarSpec>;

export type PostsConfig = ReturnType<typeof loadPostsConfig>;

export const loadPostsConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(postsSpec, env);

export const postsDbName = (cfg: { mongoDbPrefix: string }) => `${cfg.mongoDbPrefix}posts`;
