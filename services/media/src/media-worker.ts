import { Broker, BrokerEventEmitter, type ConsumerHandle } from '@social/events';
import { startServiceHttp, type ServiceHttp } from '@social/http';
import { createLogger, errorFields, runWithContext } from '@social/logger';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { mediaDbName, type MediaConfig } from './config';
import { buildContext, type ImportOverrides } from './context';
import { ProcessMedia } from './domain/processing/process-media.use-case';
import { SweepUnconfirmedUploads } from './domain/sweep-unconfirmed.use-case';
import { mediaProcessingRequested, mediaTopology, PROCESSING_QUEUE } from './jobs/media-jobs';

const log = createLogger('media:worker');

/**
 * The worker role: consumes processing jobs (uploads and imports) and sweeps unconfirmed uploads.
 * Started as its own process (dist/worker.js) so it scales apart from the API.
 */
export class MediaWorker {
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly cfg: MediaConfig,
    private readonly mongo: Connection,
    private readonly broker: Broker,
    private readonly consumer: ConsumerHandle,
    private readonly http: ServiceHttp,
    private readonly sweep: (now: Date) => Promise<number>,
  ) {}

  get port(): number {
    return this.http.port;
  }

  static async create(cfg: MediaConfig, overrides: ImportOverrides = {}): Promise<MediaWorker> {
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: mediaDbName(cfg) });
    const ctx = buildContext(cfg, mongo, overrides);
    await syncIndexes(mongo);
    const broker = await Broker.connect({ url: cfg.amqpUrl, connectionName: 'media-worker', topology: mediaTopology });
    const processMedia = new ProcessMedia({
      repo: ctx.repo,
      store: ctx.store,
      fetchPolicy: ctx.fetchPolicy,
      limits: { importMaxVideoBytes: cfg.importMaxVideoBytes, importMaxImageBytes: cfg.importMaxImageBytes },
      events: new BrokerEventEmitter(broker),
    });
    const sweepUnconfirmed = new SweepUnconfirmedUploads(ctx);
    // Idempotent by business key: ProcessMedia acts only on media still PROCESSING.
    const consumer = await broker.consume(
      PROCESSING_QUEUE,
      [mediaProcessingRequested],
      async (job) => {
        await processMedia.execute(job.payload.mediaId);
      },
      { prefetch: cfg.workerPrefetch },
    );
    const http = await startServiceHttp({
      host: cfg.host,
      port: cfg.workerPort,
      readiness: [
        { name: 'mongo', check: () => isMongoReady(mongo) },
        { name: 'broker', check: () => broker.isReady() },
      ],
    });
    const worker = new MediaWorker(cfg, mongo, broker, consumer, http, (now) =>
      sweepUnconfirmed.execute(cfg.unconfirmedUploadTtlMinutes, now),
    );
    worker.startSweeping();
    log.info('media worker running', { port: http.port, prefetch: cfg.workerPrefetch });
    return worker;
  }

  /** Runs one sweep (tests pass a later `now` instead of waiting for the TTL). */
  sweepNow(now = new Date()): Promise<number> {
    const run = this.sweeping.then(() => this.sweep(now));
    this.sweeping = run.catch(() => undefined);
    return run;
  }

  private startSweeping(): void {
    this.sweepTimer = setInterval(() => {
      void runWithContext({ requestId: `sweep-${Date.now()}` }, () =>
        this.sweepNow().catch((err) => log.warn('sweep of unconfirmed uploads failed', errorFields(err))),
      );
    }, this.cfg.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  async destroy(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.consumer.cancel();
    await this.sweeping;
    await this.http.close(this.cfg.shutdownGraceMs);
    await this.broker.close(this.cfg.shutdownGraceMs);
    await closeMongo(this.mongo);
  }
}
