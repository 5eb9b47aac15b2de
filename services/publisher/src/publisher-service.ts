import { TokenSigner } from '@social/internal-auth';
import { PUBLISH_JOBS_QUEUE, publishRequested } from '@social/contracts';
import { Broker, type ConsumerHandle } from '@social/events';
import { startServiceHttp, type ServiceHttp } from '@social/http';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { createNetworkAdapter, publishingTraits, type NetworkAdapter, type NetworkCode } from '@social/networks';
import { grpcMediaSource } from './clients/media.client';
import { grpcPostSource } from './clients/posts.client';
import { grpcCredentialSource } from './clients/profiles.client';
import { publisherDbName, type PublisherConfig } from './config';
import { brokerOutbox, invalidJobHandler, publishJobHandler } from './consumers/publish-job.consumer';
import { migrateLegacyAttempts } from './data/legacy-attempts';
import { LedgerRepository } from './data/ledger.repository';
import { ledgerModel, networkPostClaimModel } from './data/ledger.model';
import { PublishJob } from './domain/publish-job.use-case';
import { log } from './logger';
import { publisherTopology } from './topology';

/**
 * The publisher worker: consumes publish jobs and publishes on the networks. Its HTTP port only
 * serves health and readiness (it is scaled on queue depth, not traffic).
 */
export class PublisherService {
  private constructor(
    private readonly cfg: PublisherConfig,
    private readonly mongo: Connection,
    private readonly broker: Broker,
    private readonly consumer: ConsumerHandle,
    private readonly network: NetworkAdapter,
    private readonly clients: { close(): void }[],
    private readonly http: ServiceHttp,
  ) {}

  get port(): number {
    return this.http.port;
  }

  static async create(cfg: PublisherConfig): Promise<PublisherService> {
    // The key first: a bad one fails start-up at once, naming its variable.
    const signer = new TokenSigner('publisher', cfg.jwtPrivateKey);
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: publisherDbName(cfg) });
    ledgerModel(mongo);
    networkPostClaimModel(mongo);
    await syncIndexes(mongo);
    // Before any job: an entry of the earlier release's ledger that is not here yet would let a job
    // publish again what that release published (or may have).
    await migrateLegacyAttempts(mongo);
    const broker = await Broker.connect({
      url: cfg.amqpUrl,
      connectionName: 'publisher',
      topology: publisherTopology(cfg.jobDeliveryLimit),
    });
    const grpcOpts = { signer, deadlineMs: cfg.neighbourDeadlineMs };
    const posts = grpcPostSource(cfg.postsGrpcUrl, grpcOpts);
    const media = grpcMediaSource(cfg.mediaGrpcUrl, grpcOpts);
    const credentials = grpcCredentialSource(cfg.competitorsGrpcUrl, { ...grpcOpts, cacheMs: cfg.credentialsCacheMs });
    const network = createNetworkAdapter(cfg);
    const useCase = new PublishJob({
      ledger: new LedgerRepository(mongo),
      posts,
      media,
      credentials,
      network,
      outbox: brokerOutbox(broker),
      maxAttempts: cfg.maxAttempts,
      retry: { baseMs: cfg.retryBaseMs, maxMs: cfg.retryMaxMs, retryAfterMaxMs: cfg.retryAfterMaxMs },
      settle: { settleMs: (net) => cfg.outcomeSettleMs ?? publishingTraits(net as NetworkCode).maxProcessingMs + 10_000 },
      maxLatenessMs: cfg.maxLatenessMs,
    });
    const consumer = await broker.consume(PUBLISH_JOBS_QUEUE, [publishRequested], publishJobHandler(useCase), {
      prefetch: cfg.concurrency,
      onInvalid: invalidJobHandler(useCase),
    });
    const http = await startServiceHttp({
      host: cfg.host,
      port: cfg.port,
      readiness: [
        { name: 'mongo', check: () => isMongoReady(mongo) },
        { name: 'broker', check: () => broker.isReady() },
      ],
    });
    log.info('publisher worker started', { port: http.port, concurrency: cfg.concurrency });
    return new PublisherService(cfg, mongo, broker, consumer, network, [posts, media, credentials], http);
  }

  async destroy(): Promise<void> {
    // Finish the jobs in hand (their results are confirmed) before closing anything they use.
    await this.consumer.cancel();
    await this.broker.close(this.cfg.shutdownGraceMs);
    await this.http.close(this.cfg.shutdownGraceMs);
    for (const c of this.clients) c.close();
    await this.network.close();
    await closeMongo(this.mongo);
  }
}
