import { Router } from 'express';
import { profileAuthRevoked } from '@social/contracts';
import { Broker, type ConsumerHandle } from '@social/events';
import type { GrpcServer } from '@social/grpc';
import { startServiceHttp, type ServiceHttp } from '@social/http';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { verifierFor } from '@social/internal-auth';
import { createNetworkAdapter, type NetworkAdapter } from '@social/networks';
import { competitorsDbName, type CompetitorsConfig } from './config';
import { profileAuthRevokedHandler } from './consumers/profile-auth-revoked.consumer';
import { CompetitorRepository } from './data/competitor.repository';
import { OutboxRepository } from './data/outbox.repository';
import { ProfileRepository } from './data/profile.repository';
import { CompetitorsUseCases } from './domain/competitors.use-cases';
import { ProfilesUseCases } from './domain/profiles.use-cases';
import { SearchProfiles } from './domain/search.use-case';
import { AtRestCipher } from '@social/at-rest';
import { OutboxRelay } from './events/outbox-relay';
import { createGrpcServer } from './grpc';
import { competitorsRoutes } from './http/competitors.routes';
import { profilesRoutes } from './http/profiles.routes';
import { searchRoutes } from './http/search.routes';
import { log } from './logger';

interface Parts {
  mongo: Connection;
  adapter: NetworkAdapter;
  broker: Broker;
  relay: OutboxRelay;
  consumer: ConsumerHandle;
  grpc: GrpcServer;
  grpcPort: number;
  http: ServiceHttp;
}

/**
 * Connected own profiles, competitor links with plan limits, and public-profile search; HTTP behind
 * the gateway, gRPC for the other services, collection jobs out and auth revocations in over RabbitMQ.
 */
export class CompetitorsService {
  private constructor(
    private readonly cfg: CompetitorsConfig,
    private readonly parts: Parts,
  ) {}

  get port(): number {
    return this.parts.http.port;
  }

  get grpcPort(): number {
    return this.parts.grpcPort;
  }

  /** The outbox relay, so tests can wait for a pass instead of sleeping. */
  get relay(): OutboxRelay {
    return this.parts.relay;
  }

  static async create(cfg: CompetitorsConfig): Promise<CompetitorsService> {
    // Keys first: a bad one fails start-up at once, naming its variable.
    const verifier = verifierFor(cfg.internalJwtPublicKeys, 'competitors');
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: competitorsDbName(cfg) });
    const profiles = new ProfileRepository(mongo);
    const competitors = new CompetitorRepository(mongo);
    const outbox = new OutboxRepository(mongo);
    await syncIndexes(mongo);
    const adapter = createNetworkAdapter(cfg);
    const broker = await Broker.connect({
      url: cfg.amqpUrl,
      connectionName: 'competitors',
      topology: {
        exchanges: [{ name: cfg.profilesExchange, type: 'topic' }],
        queues: [{ name: cfg.eventsQueue, bindings: [{ exchange: cfg.profilesExchange, routingKey: profileAuthRevoked.type }] }],
      },
    });
    const relay = new OutboxRelay({
      broker,
      exchange: cfg.profilesExchange,
      intervalMs: cfg.outboxIntervalMs,
      outbox,
      targetExists: (kind, id) => (kind === 'profile' ? profiles.exists(id) : competitors.exists(id)),
    });
    const eventsRecorded = () => relay.kick();
    const cipher = new AtRestCipher(cfg.tokenKey);
    const profilesUseCases = new ProfilesUseCases({ profiles, outbox, adapter, cipher, backfillDays: cfg.backfillDays, eventsRecorded });
    const competitorsUseCases = new CompetitorsUseCases({
      competitors,
      outbox,
      adapter,
      plans: cfg.plans,
      defaultPlan: cfg.defaultPlan,
      backfillDays: cfg.backfillDays,
      eventsRecorded,
    });
    const search = new SearchProfiles({ profiles, adapter, cipher });

    const consumer = await broker.consume(cfg.eventsQueue, [profileAuthRevoked], profileAuthRevokedHandler(profiles));
    const grpc = createGrpcServer({
      verifier,
      profiles: profilesUseCases,
      competitors: competitorsUseCases,
      profileStore: profiles,
      cipher,
    });
    const grpcPort = await grpc.start(cfg.host, cfg.grpcPort);

    const api = Router();
    api.use(profilesRoutes(profilesUseCases));
    api.use(competitorsRoutes(competitorsUseCases));
    api.use(searchRoutes(search));
    const http = await startServiceHttp({
      // The largest request body this API takes (the gateway checks the same per route).
      jsonLimit: '16kb',
      host: cfg.host,
      port: cfg.port,
      api: { router: api, verifier },
      readiness: [
        { name: 'mongo', check: () => isMongoReady(mongo) },
        // Not a hard dependency of requests (events wait in the outbox), but the consumer needs it.
        { name: 'broker', check: () => broker.isReady() },
      ],
    });
    relay.start();
    log.info('competitors listening', { port: http.port, grpcPort });
    return new CompetitorsService(cfg, { mongo, adapter, broker, relay, consumer, grpc, grpcPort, http });
  }

  async destroy(): Promise<void> {
    const p = this.parts;
    await Promise.all([p.http.close(this.cfg.shutdownGraceMs), p.grpc.shutdown(this.cfg.shutdownGraceMs)]);
    await p.consumer.cancel();
    await p.relay.stop();
    await p.broker.close(this.cfg.shutdownGraceMs);
    await p.adapter.close();
    await closeMongo(p.mongo);
  }
}
