import Redis from 'ioredis';
import type { RequestHandler } from 'express';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { serveDraining, type ServiceHttp } from '@social/http';
import { GATEWAY_ISSUER, TokenSigner } from '@social/internal-auth';
import { createLogger } from '@social/logger';
import { gatewayDbName, type GatewayConfig } from './config';
import { gatewayModels } from './data/workspace.model';
import { WorkspaceRepository } from './data/workspace.repository';
import { Authenticator } from './auth/authenticator';
import { KeyCache } from './auth/key-cache';
import { RateLimiter } from './rate-limit/rate-limiter';
import { proxyTo } from './proxy/proxy';
import { IdempotencyStore } from './idempotency/idempotency-store';
import type { UpstreamName } from './proxy/routes';
import { createGatewayApp, type GatewayAppDeps } from './app';

const log = createLogger('gateway');

export class GatewayService {
  private constructor(
    readonly cfg: GatewayConfig,
    private readonly mongo: Connection,
    private readonly redis: Redis,
    private readonly keyCache: KeyCache,
    private readonly http: ServiceHttp,
  ) {}

  get port(): number {
    return this.http.port;
  }

  static async create(cfg: GatewayConfig): Promise<GatewayService> {
    // The key first: a bad one fails start-up at once, naming its variable.
    const signer = new TokenSigner(GATEWAY_ISSUER, cfg.jwtPrivateKey);
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: gatewayDbName(cfg) });
    const models = gatewayModels(mongo);
    await syncIndexes(mongo);
    const redis = new Redis(cfg.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
    const repo = new WorkspaceRepository(models);
    const keyCache = new KeyCache(redis, { ttlSeconds: cfg.keyCacheTtlSeconds, localTtlMs: cfg.keyLocalCacheMs });
    await keyCache.listen();
    const proxies: Record<UpstreamName, RequestHandler> = {
      posts: proxyTo('posts', cfg.postsUrl, cfg.proxyTimeoutMs),
      media: proxyTo('media', cfg.mediaUrl, cfg.proxyTimeoutMs),
      competitors: proxyTo('competitors', cfg.competitorsUrl, cfg.proxyTimeoutMs),
      insights: proxyTo('insights', cfg.insightsUrl, cfg.proxyTimeoutMs),
      webhooks: proxyTo('webhooks', cfg.webhooksUrl, cfg.proxyTimeoutMs),
    };
    // Draining (readiness 503 before the server stops) is packages/http's, as for every service.
    const deps: Omit<GatewayAppDeps, 'isDraining'> = {
      authenticator: new Authenticator(repo, keyCache),
      rateLimiter: new RateLimiter(redis, cfg.rateLimitWindowSeconds),
      limitFor: (plan) => cfg.plans[plan]?.requestsPerWindow ?? cfg.rateLimitRequests,
      proxies,
      signer,
      bodyLimitBytes: cfg.bodyLimitBytes,
      idempotency: new IdempotencyStore(redis, {
        retentionMs: cfg.idempotencyRetentionSeconds * 1000,
        // A marker outlives the longest request, so a crashed gateway cannot hold a key for a day.
        pendingMs: cfg.proxyTimeoutMs + 10_000,
      }),
      readiness: [
        { name: 'mongo', check: () => isMongoReady(mongo) },
        { name: 'redis', check: () => redis.status === 'ready' },
      ],
    };
    const http = await serveDraining((isDraining) => createGatewayApp({ ...deps, isDraining }), cfg.port, cfg.host);
    const service = new GatewayService(cfg, mongo, redis, keyCache, http);
    log.info('gateway listening', { host: cfg.host, port: http.port });
    return service;
  }

  async destroy(): Promise<void> {
    await this.http.close(this.cfg.shutdownGraceMs);
    await this.keyCache.close();
    this.redis.disconnect();
    await closeMongo(this.mongo);
  }
}
