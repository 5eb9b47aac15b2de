import { Router } from 'express';
import { PUBLISH_RESULTS_QUEUE, publishCompleted } from '@social/contracts';
import { Broker, BrokerEventEmitter, type ConsumerHandle } from '@social/events';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { startServiceHttp, type ServiceHttp } from '@social/http';
import type { GrpcServer } from '@social/grpc';
import { TokenSigner, verifierFor } from '@social/internal-auth';
import { createLogger } from '@social/logger';
import { grpcMediaDirectory } from './clients/media.client';
import { grpcProfileDirectory } from './clients/profiles.client';
import { postsDbName, type PostsConfig } from './config';
import { LabelRepository } from './data/label.repository';
import { PostListIndex } from './data/post-list.index';
import { PostRepository } from './data/post.repository';
import type { MediaDirectory, ProfileDirectory } from './domain/posts/ports';
import { LabelsUseCases } from './domain/labels/labels.use-cases';
import { PostsUseCases } from './domain/posts/posts.use-cases';
import { postsGrpcServer } from './grpc';
import { labelsRoutes } from './http/labels.routes';
import { postsRoutes } from './http/posts.routes';
import { brokerJobQueue, postsTopology, publishResultsHandler } from './consumers/publish-results.consumer';
import { migrateLegacyPublishTasks } from './data/legacy-publish-tasks';
import { ApplyPublishResult } from './domain/publishing/apply-result.use-case';
import { Dispatcher } from './domain/publishing/dispatcher';
import { publishingHooks } from './domain/publishing/publishing-hooks';
import { Watchdog } from './domain/publishing/watchdog';

const log = createLogger('posts');

export class PostsService {
  private constructor(
    private readonly cfg: PostsConfig,
    private readonly mongo: Connection,
    private readonly http: ServiceHttp,
    private readonly grpc: GrpcServer,
    readonly grpcPort: number,
    private readonly neighbours: { close(): void }[],
    private readonly broker: Broker,
    private readonly publishing: { dispatcher: Dispatcher; watchdog: Watchdog; results: ConsumerHandle },
  ) {}

  get port(): number {
    return this.http.port;
  }

  static async create(cfg: PostsConfig): Promise<PostsService> {
    // Keys first: a bad one fails start-up at once, naming its variable.
    const verifier = verifierFor(cfg.internalJwtPublicKeys, 'posts');
    const signer = new TokenSigner('posts', cfg.jwtPrivateKey);
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: postsDbName(cfg) });
    const labels = new LabelRepository(mongo);
    const posts = new PostRepository(mongo, { firstLookBackMs: cfg.dispatchLookbackMinutes * 60_000 });
    await syncIndexes(mongo);
    await posts.dropUnusedIndexes();
    await migrateLegacyPublishTasks(mongo, posts);
    const neighbourOpts = { signer, deadlineMs: cfg.neighbourDeadlineMs };
    const media: MediaDirectory = grpcMediaDirectory(cfg.mediaGrpcUrl, neighbourOpts);
    const profiles: ProfileDirectory = grpcProfileDirectory(cfg.competitorsGrpcUrl, neighbourOpts);
    const broker = await Broker.connect({ url: cfg.amqpUrl, connectionName: 'posts', topology: postsTopology });
    const jobs = brokerJobQueue(broker);
    const dispatcher = new Dispatcher(posts, jobs, {
      tickMs: cfg.dispatchTickMs,
      lookAheadMs: cfg.dispatchLookAheadMs,
      claimLeadMs: cfg.dispatchClaimLeadMs,
      concurrency: cfg.dispatchConcurrency,
      batchSize: cfg.dispatchBatch,
      watchdogTimeoutMs: cfg.watchdogTimeoutMs,
    });
    const events = new BrokerEventEmitter(broker);
    const applyResult = new ApplyPublishResult(posts, undefined, events);
    const watchdog = new Watchdog(posts, jobs, {
      tickMs: cfg.watchdogTickMs,
      timeoutMs: cfg.watchdogTimeoutMs,
      maxIntervalMs: cfg.watchdogMaxIntervalMs,
    });
    const listIndex = new PostListIndex(posts, cfg.listCacheEntries);
    const useCases = new PostsUseCases({ posts, listIndex, labels, media, profiles, publishing: publishingHooks(dispatcher), events });
    const results = await broker.consume(PUBLISH_RESULTS_QUEUE, [publishCompleted], publishResultsHandler(applyResult), {
      prefetch: cfg.resultsPrefetch,
    });

    const api = Router();
    api.use(labelsRoutes(new LabelsUseCases({ labels })));
    api.use(postsRoutes(useCases));
    const grpc = postsGrpcServer(posts, verifier);
    const grpcPort = await grpc.start(cfg.host, cfg.grpcPort);
    const http = await startServiceHttp({
      // The largest request body this API takes (the gateway checks the same per route).
      jsonLimit: '256kb',
      host: cfg.host,
      port: cfg.port,
      api: { router: api, verifier },
      readiness: [
        { name: 'mongo', check: () => isMongoReady(mongo) },
        { name: 'broker', check: () => broker.isReady() },
      ],
    });
    dispatcher.start();
    watchdog.start();
    log.info('posts listening', { port: http.port, grpcPort });
    return new PostsService(cfg, mongo, http, grpc, grpcPort, [media, profiles], broker, { dispatcher, watchdog, results });
  }

  async destroy(): Promise<void> {
    await Promise.all([this.publishing.dispatcher.stop(), this.publishing.watchdog.stop(), this.publishing.results.cancel()]);
    await Promise.all([this.http.close(this.cfg.shutdownGraceMs), this.grpc.shutdown(this.cfg.shutdownGraceMs)]);
    await this.broker.close(this.cfg.shutdownGraceMs);
    for (const n of this.neighbours) n.close();
    await closeMongo(this.mongo);
  }
}
