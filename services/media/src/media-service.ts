import { Router } from 'express';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { startServiceHttp, type ServiceHttp } from '@social/http';
import { createLogger } from '@social/logger';
import { mediaDbName, type MediaConfig } from './config';

const log = createLogger('media');

export class MediaService {
  private constructor(
    private readonly cfg: MediaConfig,
    private readonly mongo: Connection,
    private readonly http: ServiceHttp,
  ) {}

  get port(): number {
    return this.http.port;
  }

  static async create(cfg: MediaConfig): Promise<MediaService> {
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: mediaDbName(cfg) });
    await syncIndexes(mongo);
    const http = await startServiceHttp({
      audience: 'media',
      internalJwtSecret: cfg.internalJwtSecret,
      host: cfg.host,
      port: cfg.port,
      api: Router(),
      readiness: [{ name: 'mongo', check: () => isMongoReady(mongo) }],
    });
    log.info('media listening', { port: http.port });
    return new MediaService(cfg, mongo, http);
  }

  async destroy(): Promise<void> {
    await this.http.close(this.cfg.shutdownGraceMs);
    await closeMongo(this.mongo);
  }
}
