import { commonSpec, loadConfig, mongoDbPrefixSpec, privateKeySpec, publicKeysSpec, type VarSpec } from '@social/config';

const MB = 1024 * 1024;

/** Shared by the HTTP service and the worker, so both sign and check addresses the same way. */
export const mediaSpec = {
  ...commonSpec,
  ...mongoDbPrefixSpec,
  ...publicKeysSpec,
  jwtPrivateKey: privateKeySpec('media'),
  port: { env: 'MEDIA_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8082 },
  grpcPort: { env: 'MEDIA_GRPC_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 9082 },
  workerPort: { env: 'MEDIA_WORKER_PORT', type: 'integer', minimum: 0, maximum: 65535, default: 8086 },
  postsGrpcUrl: { env: 'POSTS_GRPC_URL', type: 'string', default: '127.0.0.1:9081' },
  publicBaseUrl: { env: 'PUBLIC_BASE_URL', type: 'string', format: 'uri', default: 'http://127.0.0.1:8080' },
  /** HMAC key of signed storage addresses; a published or short one refuses start-up. */
  storageSigningSecret: { env: 'STORAGE_SIGNING_SECRET', type: 'string', required: true, secret: true },
  uploadUrlTtlSeconds: { env: 'UPLOAD_URL_TTL_SECONDS', type: 'integer', minimum: 10, default: 900 },
  fileUrlTtlSeconds: { env: 'FILE_URL_TTL_SECONDS', type: 'integer', minimum: 10, default: 3600 },
  maxUploadBytes: { env: 'MAX_UPLOAD_BYTES', type: 'integer', minimum: 1, default: 500 * MB },
  unconfirmedUploadTtlMinutes: { env: 'UNCONFIRMED_UPLOAD_TTL_MINUTES', type: 'integer', minimum: 1, default: 1440 },
  sweepIntervalMs: { env: 'SWEEP_INTERVAL_MS', type: 'integer', minimum: 100, default: 60000 },
  importMaxVideoBytes: { env: 'IMPORT_MAX_VIDEO_BYTES', type: 'integer', minimum: 1, default: 200 * MB },
  importMaxImageBytes: { env: 'IMPORT_MAX_IMAGE_BYTES', type: 'integer', minimum: 1, default: 30 * MB },
  importConnectTimeoutMs: { env: 'IMPORT_CONNECT_TIMEOUT_MS', type: 'integer', minimum: 1, default: 10000 },
  importTotalTimeoutMs: { env: 'IMPORT_TOTAL_TIMEOUT_MS', type: 'integer', minimum: 1, default: 300000 },
  importMaxRedirects: { env: 'IMPORT_MAX_REDIRECTS', type: 'integer', minimum: 0, maximum: 10, default: 5 },
  /**
   * Comma-separated CIDRs exempt from the private-address rule (a trusted internal mirror, the
   * benchmark). Empty in production.
   */
  importAllowCidrs: { env: 'IMPORT_ALLOW_CIDRS', type: 'string', default: '' },
  workerPrefetch: { env: 'MEDIA_WORKER_PREFETCH', type: 'integer', minimum: 1, default: 2 },
  imageProvider: { env: 'IMAGE_PROVIDER', type: 'string', enum: ['local', 'openai'], default: 'local' },
  imageApiUrl: { env: 'IMAGE_API_URL', type: 'string', default: 'https://api.openai.com/v1' },
  imageApiKey: { env: 'IMAGE_API_KEY', type: 'string', default: '' },
  imageApiModel: { env: 'IMAGE_API_MODEL', type: 'string', default: 'gpt-image-1' },
  imageApiTimeoutMs: { env: 'IMAGE_API_TIMEOUT_MS', type: 'integer', minimum: 1, default: 120000 },
} as const satisfies Record<string, VarSpec>;

export type MediaConfig = ReturnType<typeof loadMediaConfig>;

export const loadMediaConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(mediaSpec, env);

export const mediaDbName = (cfg: { mongoDbPrefix: string }) => `${cfg.mongoDbPrefix}media`;
