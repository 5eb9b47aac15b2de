import { Router } from 'express';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { startServiceHttp, type ServiceHttp } from '@social/http';
import { createLogger } from '@social/logger';
import { insightsDbName, type InsightsConfig } from './config';

const log = createLogger('insights');

export class InsightsService {
  private constructor(
    private readonly cfg: InsightsConfig,
    private readonly mongo: Connection,
    private readonly http: ServiceHttp,
  ) {}

  get port(): number {
    return this.http.port;
  }

  static async create(cfg: InsightsConfig): Promise<InsightsService> {
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: insightsDbName(cfg) });
    await syncIndexes(mongo);
    const http = await startServiceHttp({
      audience: 'insights',
      internalJwtSecret: cfg.internalJwtSecret,
      host: cfg.host,
      port: cfg.port,
      api: Router(),
      readiness: [{ name: 'mongo', check: () => isMongoReady(mongo) }],
    });
    log.info('insights listening', { port: http.port });
    return new InsightsService(cfg, mongo, http);
  }

  async destroy(): Promise<void> {
    await this.http.close(this.cfg.shutdownGraceMs);
    await closeMongo(this.mongo);
  }
}
