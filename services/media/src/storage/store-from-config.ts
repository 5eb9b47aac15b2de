import { resolve } from 'node:path';
import type { Db } from 'mongodb';
import type { MediaConfig } from '../config';
import { FallbackFileStore } from './fallback-file-store';
import type { FileStore } from './file-store';
import { FsFileStore } from './fs-file-store';
import { GridFsFileStore } from './gridfs-file-store';
import { S3FileStore } from './s3-file-store';

type StoreConfig = Pick<
  MediaConfig,
  | 'mediaStore'
  | 'mediaDataDir'
  | 's3Endpoint'
  | 's3PublicEndpoint'
  | 's3Region'
  | 's3Bucket'
  | 's3AccessKeyId'
  | 's3SecretAccessKey'
  | 's3ForcePathStyle'
>;

/** The configured store alone (MEDIA_STORE), without the GridFS fallback. */
export function primaryStore(cfg: StoreConfig): FileStore {
  if (cfg.mediaStore === 's3') {
    for (const [name, value] of [
      ['S3_ACCESS_KEY_ID', cfg.s3AccessKeyId],
      ['S3_SECRET_ACCESS_KEY', cfg.s3SecretAccessKey],
      ['S3_BUCKET', cfg.s3Bucket],
    ]) {
      if (!value) throw new Error(`${name} is required when MEDIA_STORE=s3`);
    }
    return new S3FileStore({
      endpoint: cfg.s3Endpoint,
      ...(cfg.s3PublicEndpoint ? { publicEndpoint: cfg.s3PublicEndpoint } : {}),
      region: cfg.s3Region,
      bucket: cfg.s3Bucket,
      accessKeyId: cfg.s3AccessKeyId,
      secretAccessKey: cfg.s3SecretAccessKey!,
      forcePathStyle: cfg.s3ForcePathStyle,
    });
  }
  return new FsFileStore(resolve(cfg.mediaDataDir));
}

/** The store the service and the worker use: the configured one, GridFS behind it when GRIDFS_FALLBACK. */
export function storeFromConfig(cfg: StoreConfig & Pick<MediaConfig, 'gridfsFallback'>, db: Db): FileStore {
  const primary = primaryStore(cfg);
  return cfg.gridfsFallback ? new FallbackFileStore(primary, new GridFsFileStore(db)) : primary;
}
