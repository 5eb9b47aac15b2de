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
  /** Where file bytes live: `fs` (a data directory, one machine) or `s3` (an S3-compatible bucket). */
  mediaStore: { env: 'MEDIA_STORE', type: 'string', enum: ['fs', 's3'], default: 'fs' },
  /** The data directory of `fs`; relative to the working directory (`pnpm start` sets .local/media-files). */
  mediaDataDir: { env: 'MEDIA_DATA_DIR', type: 'string', default: '.local/media-files' },
  s3Endpoint: { env: 'S3_ENDPOINT', type: 'string', default: 'http://127.0.0.1:7070' },
  /** The store's address as clients reach it (presigned addresses); S3_ENDPOINT when empty. */
  s3PublicEndpoint: { env: 'S3_PUBLIC_ENDPOINT', type: 'string', default: '' },
  s3Region: { env: 'S3_REGION', type: 'string', default: 'us-east-1' },
  s3Bucket: { env: 'S3_BUCKET', type: 'string', default: 'social-media' },
  s3AccessKeyId: { env: 'S3_ACCESS_KEY_ID', type: 'string', default: '' },
  s3SecretAccessKey: { env: 'S3_SECRET_ACCESS_KEY', type: 'string', secret: true },
  s3ForcePathStyle: { env: 'S3_FORCE_PATH_STYLE', type: 'boolean', default: true },
  /**
   * Signed uploads and downloads answer 307 to a presigned address of the store, so the bytes go
   * between the client and the store without passing through this service (s3 only).
   */
  s3DirectTransfer: { env: 'S3_DIRECT_TRANSFER', type: 'boolean', default: true },
  /** Files stored in GridFS before the move stay readable (and deletable) until `migrate-files` ran. */
  gridfsFallback: { env: 'GRIDFS_FALLBACK', type: 'boolean', default: false },
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
