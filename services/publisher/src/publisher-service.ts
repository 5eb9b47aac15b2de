import { Router } from 'express';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { startServiceHttp, type ServiceHttp } from '@social/http';
import { createLogger } from '@social/logger';
import { publisherDbName, type PublisherConfig } from './config';

const log = createLogger('publisher');

export class PublisherService {
  private constructor(
    private readonly cfg: PublisherConfig,
    private readonly mongo: Connection,
    private readonly http: ServiceHttp,
  ) {}

  get port(): number {
    return this.http.port;
  }

  static async create(cfg: PublisherConfig): Promise<PublisherService> {
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: publisherDbName(cfg) });
    await syncIndexes(mongo);
    const http = await startServiceHttp({
      audience: 'publisher',
      internalJwtSecret: cfg.internalJwtSecret,
      host: cfg.host,
      port: cfg.port,
      api: Router(),
      readiness: [{ name: 'mongo', check: () => isMongoReady(mongo) }],
    });
    log.info('publisher listening', { port: http.port });
    return new PublisherService(cfg, mongo, http);
  }

  async destroy(): Promise<void> {
    await this.http.close(this.cfg.shutdownGraceMs);
    await closeMongo(this.mongo);
  }
}
