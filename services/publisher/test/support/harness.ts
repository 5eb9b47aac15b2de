import amqp from 'amqplib';
import {
  PROFILES_EXCHANGE,
  PUBLISH_RESULTS_QUEUE,
  PUBLISHING_EXCHANGE,
  profileAuthRevoked,
  publishCompleted,
  publishJobEventId,
  publishRequested,
  reconcileJobEventId,
  type PublishCompleted,
  type ProfileAuthRevoked,
  type PublishRequested,
} from '@social/contracts';
import { Broker } from '@social/events';
import { setLogLevel } from '@social/logger';
import { createTestVhost, testEnv, TestSystem, type TestVhost } from '@social/testkit';
import { FakeNeighbours } from './fake-neighbours';

setLogLevel('warn');

export const AUTH_REVOKED_TEST_QUEUE = 'test.profile-auth-revoked';

/**
 * The real publisher worker and network sandbox as processes, in a RabbitMQ vhost of their own,
 * with gRPC test doubles of posts, media and competitors. The test plays the posts service: it
 * publishes jobs and collects results.
 */
export class PublisherHarness {
  readonly results: PublishCompleted[] = [];
  readonly revoked: ProfileAuthRevoked[] = [];

  private constructor(
    readonly system: TestSystem,
    readonly vhost: TestVhost,
    readonly fakes: FakeNeighbours,
    readonly broker: Broker,
  ) {}

  static async start(env: Record<string, string> = {}): Promise<PublisherHarness> {
    const base = testEnv();
    const vhost = await createTestVhost(base['AMQP_URL']!);
    const fakes = new FakeNeighbours();
    await fakes.start();
    const system = await TestSystem.start(
      {
        AMQP_URL: vhost.amqpUrl,
        POSTS_GRPC_URL: fakes.addresses.posts,
        MEDIA_GRPC_URL: fakes.addresses.media,
        COMPETITORS_GRPC_URL: fakes.addresses.competitors,
        SANDBOX_ADMIN: 'true',
        PUBLISHER_RETRY_BASE_MS: '100',
        PUBLISHER_RETRY_MAX_MS: '500',
        SHUTDOWN_GRACE_MS: '2000',
        ...env,
      },
      ['network-sandbox', 'publisher'],
    ).catch(async (err) => {
      // Without this the fake gRPC servers keep jest from exiting after a failed start.
      await fakes.stop();
      await vhost.drop();
      throw err;
    });
    const broker = await Broker.connect({
      url: vhost.amqpUrl,
      connectionName: 'publisher-test',
      topology: {
        exchanges: [
          { name: PUBLISHING_EXCHANGE, type: 'topic' },
          { name: PROFILES_EXCHANGE, type: 'topic' },
        ],
        queues: [
          { name: PUBLISH_RESULTS_QUEUE, bindings: [{ exchange: PUBLISHING_EXCHANGE, routingKey: publishCompleted.type }] },
          { name: AUTH_REVOKED_TEST_QUEUE, bindings: [{ exchange: PROFILES_EXCHANGE, routingKey: profileAuthRevoked.type }] },
        ],
      },
    });
    const h = new PublisherHarness(system, vhost, fakes, broker);
    await broker.consume(PUBLISH_RESULTS_QUEUE, [publishCompleted], (env) => {
      h.results.push(env.payload);
    });
    await broker.consume(AUTH_REVOKED_TEST_QUEUE, [profileAuthRevoked], (env) => {
      h.revoked.push(env.payload);
    });
    return h;
  }

  get sandboxUrl(): string {
    return this.system.env['NETWORK_SANDBOX_URL']!;
  }

  async sandbox(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${this.sandboxUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  }

  /** Connects a sandbox account as profile `profileId` (a real token from the sandbox). */
  async connect(profileId: string, net: string, accountId: string): Promise<void> {
    const { accessToken } = await this.sandbox('POST', `/sandbox/${net}/accounts/${accountId}/tokens`);
    this.fakes.credentials.set(profileId, { net, accountId, token: accessToken });
  }

  async dispatch(job: Omit<PublishRequested, 'dueAt'> & { dueAt?: string }, workspaceId = 'w1'): Promise<void> {
    const payload = { ...job, dueAt: job.dueAt ?? new Date().toISOString() };
    await this.broker.publish(publishRequested, payload, { workspaceId, id: publishJobEventId(payload) });
  }

  /** The posts watchdog's question about a job (round `round` of its checks). */
  async reconcile(job: PublishRequested, round = 1, workspaceId = 'w1'): Promise<void> {
    const payload = { ...job, mode: 'reconcile' as const };
    await this.broker.publish(publishRequested, payload, { workspaceId, id: reconcileJobEventId(payload, round) });
  }

  /** A job as the posts dispatcher sends it: the content travels with it. */
  job(postId: string, profileId: string, net: string, overrides: Partial<PublishRequested> & { caption?: string } = {}): PublishRequested {
    const { caption, ...rest } = overrides;
    return {
      postId,
      profileId,
      revision: 1,
      net,
      dueAt: new Date().toISOString(),
      content: { type: 'STATUS', caption: caption ?? `caption of ${postId}`, firstComment: null, mediaLibIds: [], links: [], settings: {} },
      ...rest,
    };
  }

  resultsFor(postId: string): PublishCompleted[] {
    return this.results.filter((r) => r.postId === postId);
  }

  /** The settled results of a post (UNKNOWN is a progress report, not an outcome). */
  outcomesFor(postId: string): PublishCompleted[] {
    return this.resultsFor(postId).filter((r) => r.status !== 'UNKNOWN');
  }

  /**
   * How many posts the network created for (post, profile), counted where it happens: the sandbox
   * records the key our client sent with every publish request, on networks that ignore keys too.
   */
  async created(postId: string, profileId: string): Promise<number> {
    const key = `${postId}:${profileId}`;
    const { clientKeys } = await this.sandbox('GET', `/sandbox/admin/published?clientKeyPrefix=${encodeURIComponent(key)}`);
    return (clientKeys as { clientKey: string; created: number }[]).filter((k) => k.clientKey === key).reduce((n, k) => n + k.created, 0);
  }

  /**
   * Like created(), counting also the posts created under the keys releases before the ledger sent
   * (`${postId}:${profileId}:${revision}`, one per revision).
   */
  async createdUnderAnyKey(postId: string, profileId: string): Promise<number> {
    const key = `${postId}:${profileId}`;
    const { clientKeys } = await this.sandbox('GET', `/sandbox/admin/published?clientKeyPrefix=${encodeURIComponent(key)}`);
    return (clientKeys as { clientKey: string; created: number }[])
      .filter((k) => k.clientKey === key || k.clientKey.startsWith(`${key}:`))
      .reduce((n, k) => n + k.created, 0);
  }

  /** Puts bytes on the jobs route as they are, bypassing envelope validation (what a buggy producer sends). */
  async sendRaw(body: string | object): Promise<void> {
    const conn = await amqp.connect(this.vhost.amqpUrl);
    try {
      const ch = await conn.createConfirmChannel();
      const content = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      ch.publish(PUBLISHING_EXCHANGE, publishRequested.type, content, { persistent: true, contentType: 'application/json' });
      await ch.waitForConfirms();
      await ch.close();
    } finally {
      await conn.close();
    }
  }

  /** Messages now in a queue of the vhost (e.g. a DLQ). */
  async queueDepth(queue: string): Promise<number> {
    const conn = await amqp.connect(this.vhost.amqpUrl);
    try {
      const ch = await conn.createChannel();
      const { messageCount } = await ch.checkQueue(queue);
      await ch.close();
      return messageCount;
    } finally {
      await conn.close();
    }
  }

  async stop(): Promise<void> {
    await this.broker.close(2000).catch(() => undefined);
    await this.system.destroy().catch(() => undefined);
    await this.fakes.stop();
    await this.vhost.drop();
  }
}
