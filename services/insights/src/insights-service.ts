import { TokenSigner, verifierFor } from '@social/internal-auth';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { startServiceHttp, type ServiceHttp } from '@social/http';
import { grpcPublishedPosts } from './clients/posts.client';
import { grpcProfileDirectory } from './clients/profiles.client';
import type { ProfileDirectory, PublishedPostsDirectory } from './domain/ports';
import { insightsDbName, type InsightsConfig } from './config';
import { DailyInsightsRepository } from './data/daily-insights.repository';
import { PostInsightsRepository } from './data/post-insights.repository';
import { ReadInsights } from './domain/read-insights.use-case';
import { insightsRouter } from './http/insights.routes';
import { log } from './logger';

/** The insights API: reads stored buckets only; collection runs in the collector (collector.ts). */
export class InsightsService {
  private constructor(
    private readonly cfg: InsightsConfig,
    private readonly mongo: Connection,
    private readonly http: ServiceHttp,
    private readonly profiles: ProfileDirectory,
    private readonly published: PublishedPostsDirectory,
  ) {}

  get port(): number {
    return this.http.port;
  }

  static async create(cfg: InsightsConfig): Promise<InsightsService> {
    // Keys first: a bad one fails start-up at once, naming its variable.
    const verifier = verifierFor(cfg.internalJwtPublicKeys, 'insights');
    const signer = new TokenSigner('insights', cfg.jwtPrivateKey);
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: insightsDbName(cfg) });
    const daily = new DailyInsightsRepository(mongo);
    const posts = new PostInsightsRepository(mongo);
    await syncIndexes(mongo);
    const deadline = { signer, deadlineMs: cfg.neighbourDeadlineMs };
    const profiles = grpcProfileDirectory(cfg.competitorsGrpcUrl, deadline);
    const published = grpcPublishedPosts(cfg.postsGrpcUrl, deadline);
    const read = new ReadInsights(profiles, published, daily, posts);
    const http = await startServiceHttp({
      // The largest request body this API takes (the gateway checks the same per route).
      jsonLimit: '4kb',
      host: cfg.host,
      port: cfg.port,
      api: { router: insightsRouter(read), verifier },
      readiness: [{ name: 'mongo', check: () => isMongoReady(mongo) }],
    });
    log.info('insights listening', { port: http.port });
    return new InsightsService(cfg, mongo, http, profiles, published);
  }

  async destroy(): Promise<void> {
    await this.http.close(this.cfg.shutdownGraceMs);
    this.profiles.close();
    this.published.close();
    await closeMongo(this.mongo);
  }
}
