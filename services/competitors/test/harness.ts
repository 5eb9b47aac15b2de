import { randomBytes } from 'node:crypto';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { createProfilesClient, type ProfilesServiceMethods } from '@social/contracts';
import type { GrpcClient } from '@social/grpc';
import { setLogLevel } from '@social/logger';
import { dropDatabases, signTestToken, testEnv, testSigner } from '@social/testkit';
import { startSandbox, type Sandbox } from '../../network-sandbox/test/sandbox-harness';
import { loadCompetitorsConfig } from '../src/config';
import { CompetitorsService } from '../src/competitors-service';
import { COMPETITORS_RPC_CALLERS } from '../src/grpc';

setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

export interface Published {
  type: string;
  workspaceId: string | null;
  id: string;
  payload: any;
}

export interface Harness {
  service: CompetitorsService;
  sandbox: Sandbox;
  grpc: GrpcClient<ProfilesServiceMethods>;
  /** Every message the service published on its exchange, as a bound consumer sees it. */
  published: Published[];
  /** Publishes a raw event on the service's exchange (as another service would). */
  emit(routingKey: string, envelope: unknown): void;
  api(method: string, path: string, opts?: { ws?: string; plan?: string; body?: unknown }): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/**
 * The real service on port 0 (HTTP and gRPC) against a real network-sandbox, FerretDB and RabbitMQ.
 * Its exchange and queue are named for this run, so parallel test files never see each other's jobs.
 */
export async function startHarness(plans: Record<string, { competitors: number }>): Promise<Harness> {
  const env = testEnv();
  const run = randomBytes(4).toString('hex');
  const exchange = `test.profiles.${run}`;
  const queue = `test.competitors.${run}`;
  const sandbox = await startSandbox();

  const conn: ChannelModel = await amqp.connect(env['AMQP_URL']!);
  const ch: Channel = await conn.createChannel();
  await ch.assertExchange(exchange, 'topic', { durable: true });
  const { queue: spy } = await ch.assertQueue('', { exclusive: true, autoDelete: true });
  await ch.bindQueue(spy, exchange, 'insights.#');
  const published: Published[] = [];
  await ch.consume(spy, (msg) => {
    if (!msg) return;
    const env = JSON.parse(msg.content.toString());
    published.push({ type: env.type, workspaceId: env.workspaceId, id: env.id, payload: env.payload });
    ch.ack(msg);
  });

  const cfg = loadCompetitorsConfig({
    ...env,
    COMPETITORS_PORT: '0',
    COMPETITORS_GRPC_PORT: '0',
    NETWORK_SANDBOX_URL: sandbox.url,
    PROFILES_EXCHANGE: exchange,
    COMPETITORS_EVENTS_QUEUE: queue,
    OUTBOX_INTERVAL_MS: '200',
    SHUTDOWN_GRACE_MS: '2000',
    PLANS: JSON.stringify(plans),
  });
  const service = await CompetitorsService.create(cfg);
  // Each method is called as the first caller its allow-list names (ConnectProfile as the gateway's
  // admin command line, GetPublishCredentials as the publisher, …), so the real allow-list is used.
  const clients = new Map<string, GrpcClient<ProfilesServiceMethods>>();
  const as = (method: keyof typeof COMPETITORS_RPC_CALLERS) => {
    const issuer = COMPETITORS_RPC_CALLERS[method][0];
    let client = clients.get(issuer);
    if (!client) {
      client = createProfilesClient(`127.0.0.1:${service.grpcPort}`, {
        signer: testSigner(issuer),
        defaultDeadlineMs: 10000,
      });
      clients.set(issuer, client);
    }
    return client;
  };
  const grpc: GrpcClient<ProfilesServiceMethods> = {
    call: (method, request, options) => as(method).call(method, request, options),
    stream: (method, request, options) => as(method).stream(method, request, options),
    close: () => clients.forEach((c) => c.close()),
  };
  const base = `http://127.0.0.1:${service.port}/v2`;

  return {
    service,
    sandbox,
    grpc,
    published,
    emit(routingKey, envelope) {
      ch.publish(exchange, routingKey, Buffer.from(JSON.stringify(envelope)), { persistent: true });
    },
    async api(method, path, opts = {}) {
      const token = signTestToken('gateway', 'competitors', opts.ws ?? 'ws-a', opts.plan ? { payload: { plan: opts.plan } } : {});
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async stop() {
      grpc.close();
      await service.destroy();
      await sandbox.stop();
      await ch.deleteQueue(queue).catch(() => undefined);
      await ch.deleteQueue(`${queue}.dlq`).catch(() => undefined);
      await ch.deleteExchange(exchange).catch(() => undefined);
      await conn.close();
      await dropDatabases(env['MONGO_URL']!, env['MONGO_DB_PREFIX']!);
    },
  };
}
