import { Router } from 'express';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { startServiceHttp, type ServiceHttp } from '@social/http';
import { createLogger } from '@social/logger';
import { postsDbName, type PostsConfig } from './config';
import { LabelRepository } from './data/label.repository';
import { labelsRoutes } from './http/labels.routes';

const log = createLogger('posts');

export class PostsService {
  private constructor(
    private readonly cfg: PostsConfig,
    private readonly mongo: Connection,
    private readonly http: ServiceHttp,
  ) {}

  get port(): number {
    return this.http.port;
  }

  static async create(cfg: PostsConfig): Promise<PostsService> {
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: postsDbName(cfg) });
    const labels = new LabelRepository(mongo);
    await syncIndexes(mongo);
    const api = Router();
    api.use(labelsRoutes(labels));
    const http = await startServiceHttp({
      audience: 'posts',
      internalJwtSecret: cfg.internalJwtSecret,
      host: cfg.host,
      port: cfg.port,
      api,
      readiness: [{ name: 'mongo', check: () => isMongoReady(mongo) }],
    });
    log.info('posts listening', { port: http.port });
    return new PostsService(cfg, mongo, http);
  }

  async destroy(): Promise<void> {
    await this.http.close(this.cfg.shutdownGraceMs);
    await closeMongo(this.mongo);
  }
}
