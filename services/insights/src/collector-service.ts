import { TokenSigner } from '@social/internal-auth';
import Redis from 'ioredis';
import { collectionRequested, domainEventsTopology } from '@social/contracts';
import { Broker, BrokerEventEmitter, idempotent } from '@social/events';
import { createServiceApp, listen, type RunningHttpServer } from '@social/http';
import { closeMongo, connectMongo, isMongoReady, MongoProcessedEventStore, syncIndexes, type Connection } from '@social/mongo';
import { createNetworkAdapter, type NetworkAdapter } from '@social/networks';
import { grpcProfileDirectory } from './clients/profiles.client';
import type { ProfileDirectory } from './domain/ports';
import { insightsDbName, type InsightsConfig } from './config';
import { COLLECTION_EVENTS, collectionConsumer } from './consumers/collection.consumer';
import { DailyInsightsRepository } from './data/daily-insights.repository';
import { PostInsightsRepository } from './data/post-insights.repository';
import { TargetRepository } from './data/target.repository';
import { CollectTarget } from './domain/collect-target.use-case';
import { RedisLocks } from './data/redis-locks';
import { RefreshScheduler } from './domain/refresh-scheduler';
import { collectorLog as log } from './logger';

const CONSUMER = 'insights-collector';
const PROCESSED_EVENTS_KEPT_MS = 7 * 86_400_000;

/**
 * The collection worker (`dist/collector.js`): consumes collection jobs, enqueues the periodic
 * refresh, and serves only /healthz and /readyz. Scaled separately from the API.
 */
export class CollectorService {
  private constructor(
    private readonly cfg: InsightsConfig,
    private readonly mongo: Connection,
    private readonly redis: Redis,
    private readonly broker: Broker,
    private readonly scheduler: RefreshScheduler,
    private readonly adapter: NetworkAdapter,
    private readonly profiles: ProfileDirectory,
    private readonly http: RunningHttpServer,
    private readonly draining: { value: boolean },
  ) {}

  get port(): number {
    return this.http.port;
  }

  /** Runs one refresh period now (tests, admin); returns how many jobs were enqueued. */
  refreshNow(now?: number): Promise<number> {
    return this.scheduler.tick(now);
  }

  static async create(cfg: InsightsConfig): Promise<CollectorService> {
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: insightsDbName(cfg) });
    const daily = new DailyInsightsRepository(mongo);
    const posts = new PostInsightsRepository(mongo);
    const targets = new TargetRepository(mongo);
    const processed = new MongoProcessedEventStore(mongo, CONSUMER);
    await syncIndexes(mongo);
    const redis = new Redis(cfg.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
    const locks = new RedisLocks(redis, cfg.mongoDbPrefix);
    const adapter = createNetworkAdapter(cfg);
    const profiles = grpcProfileDirectory(cfg.competitorsGrpcUrl, {
      signer: new TokenSigner('insights', cfg.jwtPrivateKey),
      deadlineMs: cfg.neighbourDeadlineMs,
    });
    const collect = new CollectTarget(
      adapter,
      profiles,
      daily,
      posts,
      targets,
      locks,
      {
        retry: { attempts: cfg.networkAttempts, baseMs: cfg.retryBaseMs, maxMs: cfg.retryMaxMs },
        postRefreshDays: cfg.postRefreshDays,
        lockTtlMs: cfg.targetLockMs,
        lockWaitMs: 60_000,
      },
      log,
    );

    const broker = await Broker.connect({
      url: cfg.amqpUrl,
      connectionName: CONSUMER,
      topology: {
        exchanges: [{ name: cfg.jobsExchange, type: 'topic' }, ...domainEventsTopology().exchanges],
        queues: [
          {
            name: cfg.jobsQueue,
            prefetch: cfg.jobsPrefetch,
            bindings: COLLECTION_EVENTS.map((e) => ({ exchange: cfg.jobsExchange, routingKey: e.type })),
          },
          ...domainEventsTopology().queues,
        ],
      },
    });
    // Closing the broker stops deliveries and lets running collections finish within the grace.
    await broker.consume(
      cfg.jobsQueue,
      COLLECTION_EVENTS,
      idempotent(processed, collectionConsumer({ collect, targets, daily, posts, log, events: new BrokerEventEmitter(broker) })),
    );
    const scheduler = new RefreshScheduler(
      targets,
      locks,
      async (job) => {
        await broker.publish(
          collectionRequested,
          {
            target: { kind: job.target.kind, id: job.target.targetId, net: job.target.net, networkAccountId: job.target.accountId },
            reason: 'refresh',
            since: job.since,
            until: job.until,
          },
          { workspaceId: job.target.ws, exchange: cfg.jobsExchange, id: job.id },
        );
      },
      { intervalMs: Math.round(cfg.refreshIntervalMinutes * 60_000), refreshDays: cfg.refreshDays },
      log,
      // FerretDB has no TTL indexes; the period's winner prunes the idempotency records.
      async () => void (await processed.prune(new Date(Date.now() - PROCESSED_EVENTS_KEPT_MS))),
    );
    scheduler.start();

    const draining = { value: false };
    const app = createServiceApp({
      readiness: [
        { name: 'mongo', check: () => isMongoReady(mongo) },
        { name: 'broker', check: () => broker.isReady() },
        { name: 'redis', check: () => redis.status === 'ready' },
      ],
      isDraining: () => draining.value,
    });
    const http = await listen(app, cfg.collectorPort, cfg.host);
    log.info('insights collector running', { port: http.port, queue: cfg.jobsQueue, refreshIntervalMinutes: cfg.refreshIntervalMinutes });
    return new CollectorService(cfg, mongo, redis, broker, scheduler, adapter, profiles, http, draining);
  }

  async destroy(): Promise<void> {
    this.draining.value = true;
    await this.scheduler.stop();
    await this.broker.close(this.cfg.shutdownGraceMs);
    await this.http.close(this.cfg.shutdownGraceMs);
    await this.adapter.close();
    this.profiles.close();
    await this.redis.quit().catch(() => this.redis.disconnect());
    await closeMongo(this.mongo);
  }
}
