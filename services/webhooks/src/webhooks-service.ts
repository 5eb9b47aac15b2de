import { WEBHOOK_EVENTS_QUEUE } from '@social/contracts';
import { Broker, type ConsumerHandle } from '@social/events';
import { AtRestCipher } from '@social/at-rest';
import { startServiceHttp, type ServiceHttp } from '@social/http';
import { verifierFor } from '@social/internal-auth';
import { errorFields, runWithContext } from '@social/logger';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { parseAllowCidrs, systemResolver, type AddressPolicy, type Resolver } from '@social/url-guard';
import { httpsSender } from './clients/http-sender';
import { retryDelays, webhooksDbName, type WebhooksConfig } from './config';
import { deliveryHandler } from './consumers/delivery.consumer';
import { domainEventsHandler, WEBHOOK_SOURCE_EVENTS } from './consumers/domain-events.consumer';
import { BrokerDeliveryJobs, DELIVERY_QUEUE, deliveryRequested, webhooksTopology } from './consumers/topology';
import { DeliveryRepository } from './data/delivery.repository';
import { EndpointRepository } from './data/endpoint.repository';
import { DeliverWebhook } from './domain/deliver.use-case';
import { RequeueOverdue } from './domain/requeue-overdue.use-case';
import { EndpointsUseCases } from './domain/endpoints.use-cases';
import { FanOut } from './domain/fan-out.use-case';
import { PruneDeliveries } from './domain/prune.use-case';
import { webhooksRoutes } from './http/webhooks.routes';
import { deliveryLog, log } from './logger';

/**
 * Database calls per state and prune run: with the default batch of 500 every 10 minutes, up to
 * 300,000 settled deliveries an hour per state; a larger backlog shrinks run by run.
 */
const PRUNE_MAX_BATCHES = 100;

/** What tests (and only tests) may replace: DNS and the trusted CAs of receivers. */
export interface WebhooksOverrides {
  resolver?: Resolver;
  ca?: string | Buffer;
}

/**
 * Webhook endpoints per workspace (HTTP API), the fan-out of domain events to them, and the
 * delivery of signed requests with retries (RabbitMQ delay queues) and a periodic sweep.
 */
export class WebhooksService {
  private sweepTimer?: NodeJS.Timeout;
  private sweeping: Promise<unknown> = Promise.resolve();
  private pruneTimer?: NodeJS.Timeout;
  private pruning: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly cfg: WebhooksConfig,
    private readonly mongo: Connection,
    private readonly http: ServiceHttp,
    private readonly broker: Broker,
    private readonly consumers: ConsumerHandle[],
    private readonly sender: { close(): void },
    private readonly sweep: () => Promise<number>,
    private readonly prune: () => Promise<number>,
  ) {}

  get port(): number {
    return this.http.port;
  }

  static async create(cfg: WebhooksConfig, overrides: WebhooksOverrides = {}): Promise<WebhooksService> {
    const verifier = verifierFor(cfg.internalJwtPublicKeys, 'webhooks');
    const addressPolicy: AddressPolicy = {
      resolver: overrides.resolver ?? systemResolver,
      allow: parseAllowCidrs(cfg.allowCidrs, 'WEBHOOKS_ALLOW_CIDRS'),
    };
    const delays = retryDelays(cfg);
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: webhooksDbName(cfg) });
    const endpoints = new EndpointRepository(mongo, new AtRestCipher(cfg.secretKey));
    try {
      await WebhooksService.prepareStoredSecrets(endpoints);
    } catch (err) {
      await closeMongo(mongo);
      throw err;
    }
    const deliveries = new DeliveryRepository(mongo);
    await syncIndexes(mongo);
    const broker = await Broker.connect({
      url: cfg.amqpUrl,
      connectionName: 'webhooks',
      topology: webhooksTopology(delays, cfg.deliveryPrefetch),
    });
    const jobs = new BrokerDeliveryJobs(broker);
    const sender = httpsSender({
      policy: addressPolicy,
      timeoutMs: cfg.timeoutMs,
      ...(overrides.ca ? { ca: overrides.ca } : {}),
      maxSockets: cfg.deliveryPrefetch,
    });
    const deliver = new DeliverWebhook(
      deliveries,
      endpoints,
      jobs,
      sender,
      { delaysMs: delays, windowMs: cfg.retryWindowMs, leaseMs: cfg.timeoutMs * 3 },
      deliveryLog,
    );
    const fanOut = new FanOut(endpoints, deliveries, jobs);
    const consumers = [
      await broker.consume(WEBHOOK_EVENTS_QUEUE, WEBHOOK_SOURCE_EVENTS, domainEventsHandler(fanOut), { prefetch: cfg.eventsPrefetch }),
      await broker.consume(DELIVERY_QUEUE, [deliveryRequested], deliveryHandler(deliver), { prefetch: cfg.deliveryPrefetch }),
    ];
    const useCases = new EndpointsUseCases({
      endpoints,
      deliveries,
      jobs,
      addressPolicy,
      maxEndpoints: cfg.maxEndpoints,
      rotationGraceMs: cfg.secretRotationGraceMs,
      onSecretRotated: (id) => deliver.forget(id),
    });
    const http = await startServiceHttp({
      jsonLimit: '16kb',
      host: cfg.host,
      port: cfg.port,
      api: { router: webhooksRoutes(useCases), verifier },
      readiness: [
        { name: 'mongo', check: () => isMongoReady(mongo) },
        { name: 'broker', check: () => broker.isReady() },
      ],
    });
    const requeueOverdue = new RequeueOverdue({ deliveries, jobs, graceMs: cfg.sweepGraceMs });
    const prune = new PruneDeliveries({
      deliveries,
      policy: { retentionDays: cfg.deliveryRetentionDays, batchSize: cfg.pruneBatchSize, maxBatches: PRUNE_MAX_BATCHES },
    });
    const service = new WebhooksService(
      cfg,
      mongo,
      http,
      broker,
      consumers,
      sender,
      () => requeueOverdue.run(new Date()),
      () => prune.run(new Date()),
    );
    service.startSweeping();
    service.startPruning();
    log.info('webhooks listening', { port: http.port });
    return service;
  }

  /** Refuses a key that does not read the stored secrets, then encrypts those an earlier version left in clear. */
  private static async prepareStoredSecrets(endpoints: EndpointRepository): Promise<void> {
    if (!(await endpoints.keyReadsStoredSecrets()))
      throw new Error(
        'WEBHOOKS_SECRET_KEY does not decrypt the stored webhook secrets: it is not the key they were stored with (docs/security.md, rotation).',
      );
    const encrypted = await endpoints.encryptStoredSecrets();
    if (encrypted > 0) log.info('stored webhook secrets encrypted', { endpoints: encrypted });
  }

  private startSweeping(): void {
    this.sweepTimer = setInterval(() => {
      this.sweeping = runWithContext({ requestId: `webhooks-sweep-${Date.now()}` }, () =>
        this.sweep().then(
          (n) => n > 0 && log.info('overdue deliveries queued again', { count: n }),
          (err) => log.warn('sweep of overdue deliveries failed', errorFields(err)),
        ),
      );
    }, this.cfg.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  /** One run at a time: a run that outlasts the interval skips the next tick. */
  private startPruning(): void {
    let running = false;
    this.pruneTimer = setInterval(() => {
      if (running) return;
      running = true;
      this.pruning = runWithContext({ requestId: `webhooks-prune-${Date.now()}` }, () =>
        this.prune().then(
          (n) => n > 0 && log.info('old deliveries pruned', { count: n, retentionDays: this.cfg.deliveryRetentionDays }),
          (err) => log.warn('pruning old deliveries failed', errorFields(err)),
        ),
      ).finally(() => {
        running = false;
      });
    }, this.cfg.pruneIntervalMs);
    this.pruneTimer.unref();
  }

  async destroy(): Promise<void> {
    clearInterval(this.sweepTimer);
    clearInterval(this.pruneTimer);
    await Promise.all([this.sweeping, this.pruning]);
    await Promise.all(this.consumers.map((c) => c.cancel()));
    await this.http.close(this.cfg.shutdownGraceMs);
    await this.broker.close(this.cfg.shutdownGraceMs);
    this.sender.close();
    await closeMongo(this.mongo);
  }
}
