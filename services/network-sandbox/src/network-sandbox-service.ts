import { setMaxListeners } from 'node:events';
import { closeMongo, type Connection, connectMongo, isMongoReady, syncIndexes } from '@social/mongo';
import { createServiceApp, listen, type RunningHttpServer } from '@social/http';
import { publishingTraits } from '@social/networks';
import type { SandboxConfig } from './config';
import { AccountRepository } from './data/account.repository';
import { PublishAttemptRepository } from './data/publish-attempt.repository';
import { PublishedPostRepository } from './data/published-post.repository';
import { TokenRepository } from './data/token.repository';
import { AccessTokens } from './domain/access-tokens';
import { AccountDirectory } from './domain/account-directory';
import { ReadDailyMetrics } from './domain/daily-metrics.use-case';
import { FailureInjector } from './domain/failure-injector';
import { ReadPostMetrics } from './domain/post-metrics.use-case';
import { ProfileInfo } from './domain/profile-info.use-case';
import { PublishedPostsUseCases } from './domain/published-posts.use-cases';
import { ListRecentPosts } from './domain/recent-posts.use-case';
import { SandboxClock } from './domain/sandbox-clock';
import type { SandboxContext } from './domain/sandbox.context';
import { SearchProfiles } from './domain/search-profiles.use-case';
import { seedAccounts } from './domain/seed-accounts';
import { sandboxRouter, type SandboxUseCases } from './http/sandbox.router';
import { log } from './logger';

export class NetworkSandboxService {
  private server: RunningHttpServer | undefined;
  private draining = false;

  private constructor(
    readonly cfg: SandboxConfig,
    private readonly conn: Connection,
    readonly ctx: SandboxContext,
    private readonly useCases: SandboxUseCases,
    private readonly shutdown: AbortController,
  ) {}

  /** Connects to the database and seeds the accounts (idempotent upserts), without listening yet. */
  static async create(cfg: SandboxConfig): Promise<NetworkSandboxService> {
    const conn = await connectMongo({ url: cfg.mongoUrl, dbName: cfg.dbName });
    try {
      const accounts = new AccountRepository(conn);
      const posts = new PublishedPostRepository(conn);
      const tokens = new TokenRepository(conn);
      const attempts = new PublishAttemptRepository(conn);
      await posts.dropLegacyIndexes();
      await syncIndexes(conn);
      await accounts.upsertAll(seedAccounts());
      const directory = new AccountDirectory(cfg.seed, await accounts.listAll());
      const shutdown = new AbortController();
      // Every held response listens for shutdown; hundreds at once are expected, not a leak.
      setMaxListeners(0, shutdown.signal);
      let service: NetworkSandboxService | undefined = undefined;
      const clock = new SandboxClock();
      const ctx: SandboxContext = {
        directory,
        tokens: new AccessTokens(tokens, directory),
        posts,
        attempts,
        failures: new FailureInjector(),
        clock,
        publicUrl: () => cfg.publicUrl ?? `http://${cfg.host}:${service?.port ?? cfg.port}`,
        shutdown: shutdown.signal,
        now: () => clock.now(),
        maxProcessingMs: (net) => cfg.maxProcessingMs ?? publishingTraits(net).maxProcessingMs,
      };
      const useCases: SandboxUseCases = {
        profileInfo: new ProfileInfo(ctx),
        search: new SearchProfiles(ctx),
        published: new PublishedPostsUseCases(ctx),
        recentPosts: new ListRecentPosts(ctx),
        dailyMetrics: new ReadDailyMetrics(ctx),
        postMetrics: new ReadPostMetrics(ctx),
      };
      service = new NetworkSandboxService(cfg, conn, ctx, useCases, shutdown);
      return service;
    } catch (err) {
      await closeMongo(conn);
      throw err;
    }
  }

  async start(): Promise<void> {
    const app = createServiceApp({
      // No API behind internal auth: the sandbox plays external networks, called directly.
      publicRoutes: sandboxRouter(this.ctx, this.useCases, { admin: this.cfg.adminEnabled }),
      readiness: [{ name: 'mongo', check: () => isMongoReady(this.conn) }],
      isDraining: () => this.draining,
    });
    this.server = await listen(app, this.cfg.port, this.cfg.host);
    if (this.cfg.adminEnabled) {
      log.warn(
        `SANDBOX_ADMIN is on: /sandbox/admin lets anyone who reaches this port inject failures and read published posts${this.cfg.production ? ' (NODE_ENV=production!)' : ''}; leave it off outside tests and development`,
      );
    }
    log.info('network sandbox listening', { port: this.server.port, admin: this.cfg.adminEnabled, dbName: this.cfg.dbName });
  }

  /** The bound port (useful with NETWORK_SANDBOX_PORT=0). */
  get port(): number {
    if (!this.server) throw new Error('not started');
    return this.server.port;
  }

  get url(): string {
    return `http://${this.cfg.host}:${this.port}`;
  }

  async destroy(): Promise<void> {
    this.draining = true;
    // Ends injected delays so held responses go out now instead of outliving the grace period.
    this.shutdown.abort();
    await this.server?.close(this.cfg.shutdownGraceMs);
    await closeMongo(this.conn);
  }
}
