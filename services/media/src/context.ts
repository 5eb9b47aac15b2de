import type { Connection } from '@social/mongo';
import { MediaRepository } from './data/media.repository';
import { parseAllowCidrs } from '@social/url-guard';
import { systemResolver, type FetchPolicy, type Resolver } from './domain/import/safe-fetch';
import type { FileUrls } from './domain/media.view';
import { UrlSigner } from './domain/signing';
import type { MediaConfig } from './config';
import type { FileStore } from './storage/file-store';
import { FallbackFileStore } from './storage/fallback-file-store';
import { hasDirectTransfer, type DirectTransfer } from './storage/file-store';
import { storeFromConfig } from './storage/store-from-config';

/** What tests (and only tests) may replace: DNS and the trusted CAs of imports. */
export interface ImportOverrides {
  resolver?: Resolver;
  ca?: string | Buffer;
}

/** The parts the HTTP service and the worker share, built the same way for both. */
export function buildContext(cfg: MediaConfig, mongo: Connection, overrides: ImportOverrides = {}) {
  const repo = new MediaRepository(mongo);
  const store: FileStore = storeFromConfig(cfg, mongo.db!);
  // Presigned addresses only for a store that has them, and only when enabled (S3_DIRECT_TRANSFER).
  const primary = store instanceof FallbackFileStore ? store.primary : store;
  const direct: DirectTransfer | null = cfg.s3DirectTransfer && hasDirectTransfer(primary) ? primary : null;
  const signer = new UrlSigner(cfg.storageSigningSecret, cfg.publicBaseUrl);
  const urls: FileUrls = { signer, ttlSeconds: cfg.fileUrlTtlSeconds };
  const fetchPolicy: FetchPolicy = {
    resolver: overrides.resolver ?? systemResolver,
    allow: parseAllowCidrs(cfg.importAllowCidrs),
    ...(overrides.ca ? { ca: overrides.ca } : {}),
    connectTimeoutMs: cfg.importConnectTimeoutMs,
    totalTimeoutMs: cfg.importTotalTimeoutMs,
    maxRedirects: cfg.importMaxRedirects,
  };
  return { repo, store, direct, signer, urls, fetchPolicy };
}
