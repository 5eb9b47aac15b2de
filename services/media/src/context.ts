import type { Connection } from '@social/mongo';
import { MediaRepository } from './data/media.repository';
import { parseAllowCidrs } from './domain/import/address-rules';
import { systemResolver, type FetchPolicy, type Resolver } from './domain/import/safe-fetch';
import type { FileUrls } from './domain/media.view';
import { UrlSigner } from './domain/signing';
import type { MediaConfig } from './config';
import type { FileStore } from './storage/file-store';
import { GridFsFileStore } from './storage/gridfs-file-store';

/** What tests (and only tests) may replace: DNS and the trusted CAs of imports. */
export interface ImportOverrides {
  resolver?: Resolver;
  ca?: string | Buffer;
}

/** The parts the HTTP service and the worker share, built the same way for both. */
export function buildContext(cfg: MediaConfig, mongo: Connection, overrides: ImportOverrides = {}) {
  const repo = new MediaRepository(mongo);
  const store: FileStore = new GridFsFileStore(mongo.db!);
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
  return { repo, store, signer, urls, fetchPolicy };
}
