import { Router } from 'express';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { startServiceHttp, type ServiceHttp } from '@social/http';
import type { GrpcServer } from '@social/grpc';
import { createLogger } from '@social/logger';
import { grpcMediaDirectory, type MediaDirectory } from './clients/media.client';
import { grpcProfileDirectory, type ProfileDirectory } from './clients/profiles.client';
import { postsDbName, type PostsConfig } from './config';
import { LabelRepository } from './data/label.repository';
import { PostListIndex } from './data/post-list.index';
import { PostRepository } from './data/post.repository';
import { PostsUseCases } from './domain/posts/posts.use-cases';
import { postsGrpcServer } from './grpc';
import { labelsRoutes } from './http/labels.routes';
import { postsRoutes } from './http/posts.routes';

const log = createLogger('posts');

export class PostsService {
  private constructor(
    private readonly cfg: PostsConfig,
    private readonly mongo: Connection,
    private readonly http: ServiceHttp,
    private readonly grpc: GrpcServer,
    readonly grpcPort: number,
    private readonly neighbours: { close(): void }[],
  ) {}

  get port(): number {
    return this.http.port;
  }

  static async create(cfg: PostsConfig): Promise<PostsService> {
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: postsDbName(cfg) });
    const labels = new LabelRepository(mongo);
    const posts = new PostRepository(mongo);
    await syncIndexes(mongo);
    const neighbourOpts = { internalJwtSecret: cfg.internalJwtSecret, deadlineMs: cfg.neighbourDeadlineMs };
    const media: MediaDirectory = grpcMediaDirectory(cfg.mediaGrpcUrl, neighbourOpts);
    const profiles: ProfileDirectory = grpcProfileDirectory(cfg.competitorsGrpcUrl, neighbourOpts);
    const listIndex = new PostListIndex(posts, cfg.listCacheEntries);
    const useCases = new PostsUseCases({ posts, listIndex, labels, media, profiles });

    const api = Router();
    api.use(labelsRoutes(labels));
    api.use(postsRoutes(useCases));
    const grpc = postsGrpcServer(posts, cfg.internalJwtSecret);
    const grpcPort = await grpc.start(cfg.host, cfg.grpcPort);
    const http = await startServiceHttp({
      audience: 'posts',
      internalJwtSecret: cfg.internalJwtSecret,
      host: cfg.host,
      port: cfg.port,
      api,
      readiness: [{ name: 'mongo', check: () => isMongoReady(mongo) }],
    });
    log.info('posts listening', { port: http.port, grpcPort });
    return new PostsService(cfg, mongo, http, grpc, grpcPort, [media, profiles]);
  }

  async destroy(): Promise<void> {
    await Promise.all([this.http.close(this.cfg.shutdownGraceMs), this.grpc.shutdown(this.cfg.shutdownGraceMs)]);
    for (const n of this.neighbours) n.close();
    await closeMongo(this.mongo);
  }
}
