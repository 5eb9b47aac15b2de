import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import { Broker } from '@social/events';
import { setLogLevel } from '@social/logger';
import { closeMongo, connectMongo, type Connection } from '@social/mongo';
import { dropDatabases, internalHeaders, testEnv } from '@social/testkit';
import { readConfig as readSandboxConfig } from '../../../network-sandbox/src/config';
import { NetworkSandboxService } from '../../../network-sandbox/src/network-sandbox-service';
import { CollectorService } from '../../src/collector-service';
import { insightsDbName, loadInsightsConfig } from '../../src/config';
import { InsightsService } from '../../src/insights-service';
import { FakeCompetitors, FakePosts } from './neighbours';

setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

export interface Harness {
  env: Record<string, string>;
  service: InsightsService;
  collector: CollectorService | undefined;
  sandbox: NetworkSandboxService | undefined;
  competitors: FakeCompetitors;
  posts: FakePosts;
  /** The insights database, for seeding and inspecting buckets. */
  db: Connection;
  /** Publishes jobs to this run's own exchange, as the competitors service would. */
  broker: Broker | undefined;
  get(ws: string, path: string): Promise<{ status: number; body: any }>;
  sandboxHttp(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/**
 * InsightsService (and, when asked, the collector and a real network sandbox) in-process on free
 * ports against the real database, broker and Redis, with an exchange and queue of its own.
 */
export async function startHarness(opts: { collector?: boolean; env?: Record<string, string> } = {}): Promise<Harness> {
  const competitors = new FakeCompetitors();
  const posts = new FakePosts();
  await competitors.start();
  await posts.start();
  const run = randomBytes(4).toString('hex');
  const env = testEnv({
    INSIGHTS_PORT: '0',
    INSIGHTS_COLLECTOR_PORT: '0',
    COMPETITORS_GRPC_URL: competitors.address,
    POSTS_GRPC_URL: posts.address,
    INSIGHTS_NEIGHBOUR_DEADLINE_MS: '1000',
    INSIGHTS_JOBS_EXCHANGE: `test.${run}.profiles`,
    INSIGHTS_JOBS_QUEUE: `test.${run}.insights.collection`,
    INSIGHTS_REFRESH_INTERVAL_MINUTES: '0',
    INSIGHTS_RETRY_BASE_MS: '20',
    INSIGHTS_RETRY_MAX_MS: '200',
    SHUTDOWN_GRACE_MS: '2000',
    ...opts.env,
  });
  let sandbox: NetworkSandboxService | undefined;
  let collector: CollectorService | undefined;
  let broker: Broker | undefined;
  if (opts.collector) {
    sandbox = await NetworkSandboxService.create(readSandboxConfig({ ...env, NETWORK_SANDBOX_PORT: '0', SANDBOX_ADMIN: 'true' }));
    await sandbox.start();
    env['NETWORK_SANDBOX_URL'] = sandbox.url;
  }
  const cfg = loadInsightsConfig(env);
  const service = await InsightsService.create(cfg);
  if (opts.collector) {
    collector = await CollectorService.create(cfg);
    broker = await Broker.connect({
      url: cfg.amqpUrl,
      connectionName: `insights-test-${run}`,
      topology: { exchanges: [{ name: cfg.jobsExchange, type: 'topic' }], queues: [] },
    });
  }
  const db = await connectMongo({ url: cfg.mongoUrl, dbName: insightsDbName(cfg) });
  const base = `http://127.0.0.1:${service.port}/v2`;

  return {
    env,
    service,
    collector,
    sandbox,
    competitors,
    posts,
    db,
    broker,
    async get(ws, path) {
      const res = await fetch(`${base}${path}`, { headers: internalHeaders('insights', ws) });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async sandboxHttp(method, path, body) {
      const res = await fetch(`${sandbox!.url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async stop() {
      await broker?.close(1000);
      await collector?.destroy();
      await service.destroy();
      await sandbox?.destroy();
      await competitors.stop();
      await posts.stop();
      await closeMongo(db);
      if (opts.collector) await deleteBrokerObjects(cfg.amqpUrl, cfg.jobsExchange, cfg.jobsQueue);
      await dropDatabases(env['MONGO_URL']!, env['MONGO_DB_PREFIX']!);
    },
  };
}

async function deleteBrokerObjects(url: string, exchange: string, queue: string): Promise<void> {
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createChannel();
    await ch.deleteQueue(queue);
    await ch.deleteQueue(`${queue}.dlq`);
    await ch.deleteExchange(exchange);
    await ch.close();
  } finally {
    await conn.close();
  }
}

export const messages = (body: any): string[] => (body?.error?.details ?? []).map((d: { message: string }) => d.message);
