import { Router } from 'express';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { startServiceHttp, type ServiceHttp } from '@social/http';
import { createLogger } from '@social/logger';
import { competitorsDbName, type CompetitorsConfig } from './config';

const log = createLogger('competitors');

export class CompetitorsService {
  private constructor(
    private readonly cfg: CompetitorsConfig,
    private readonly mongo: Connection,
    private readonly http: ServiceHttp,
  ) {}

  get port(): number {
    return this.http.port;
  }

  static async create(cfg: CompetitorsConfig): Promise<CompetitorsService> {
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: competitorsDbName(cfg) });
    await syncIndexes(mongo);
    const http = await startServiceHttp({
      audience: 'competitors',
      internalJwtSecret: cfg.internalJwtSecret,
      host: cfg.host,
      port: cfg.port,
      api: Router(),
      readiness: [{ name: 'mongo', check: () => isMongoReady(mongo) }],
    });
    log.info('competitors listening', { port: http.port });
    return new CompetitorsService(cfg, mongo, http);
  }

  async destroy(): Promise<void> {
    await this.http.close(this.cfg.shutdownGraceMs);
    await closeMongo(this.mongo);
  }
}
