import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import {
  createTestVhost,
  eventually,
  startWebhookReceiver,
  testEnv,
  TestSystem,
  type TestVhost,
  type WebhookReceiver,
} from '@social/testkit';
import { apiClient } from './support/api';
import { publishingClient, type Creds } from './support/publishing';

// Webhooks through the whole system: a post published through the gateway reaches a real HTTPS
// receiver as a signed post.published (and its stage change), verified with the standardwebhooks
// package, and shows in the endpoint's delivery log.
let vhost: TestVhost;
let system: TestSystem;
let receiver: WebhookReceiver;
let client: ReturnType<typeof publishingClient>;

beforeAll(async () => {
  receiver = await startWebhookReceiver(['receiver.example.test']);
  // The webhooks process trusts the receiver's self-signed certificate the standard Node way.
  const dir = mkdtempSync(path.join(tmpdir(), 'webhooks-e2e-'));
  writeFileSync(path.join(dir, 'ca.pem'), receiver.ca);
  vhost = await createTestVhost(testEnv()['AMQP_URL']!);
  system = await TestSystem.start({
    AMQP_URL: vhost.amqpUrl,
    PLANS: JSON.stringify({ free: { competitors: 5, requestsPerWindow: 100000000 } }),
    POSTS_DISPATCH_TICK_MS: '1000',
    SHUTDOWN_GRACE_MS: '3000',
    // The receiver listens on loopback, which endpoints may use only when allowed (tests, development).
    WEBHOOKS_ALLOW_CIDRS: '127.0.0.1/32',
    NODE_EXTRA_CA_CERTS: path.join(dir, 'ca.pem'),
  });
  client = publishingClient(system);
}, 240000);

afterAll(async () => {
  await system?.destroy();
  await receiver?.close();
  await vhost?.drop();
}, 60000);

describe('webhooks through the gateway', () => {
  it('delivers a signed post.published for a post published through the whole system', async () => {
    const { workspace, profileOf } = client;
    const c: Creds = await workspace('E2E webhooks');
    const api = apiClient(system, c);
    const hookCreated = await api.POST('/webhooks', {
      body: { url: `https://127.0.0.1:${receiver.port}/e2e`, eventTypes: ['post.published', 'post.stage_changed'] },
    });
    expect(hookCreated.response.status).toBe(201);
    const hook = hookCreated.data!;
    expect(hook.secret).toMatch(/^whsec_/);
    const refused = await api.POST('/webhooks', { body: { url: 'https://10.1.1.1/hook', eventTypes: ['post.published'] } });
    expect([refused.response.status, refused.error?.error.code]).toEqual([400, 'INVALID_WEBHOOK_URL']);

    const profileId = profileOf(c, 'generalNet');
    const created = await api.POST('/posts', {
      body: { type: 'STATUS', profileIds: [profileId], captions: [{ plainText: 'Hello webhooks' }] },
    });
    expect(created.response.status).toBe(201);
    const postId = created.data!.id;
    const published = await api.PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId, op: 'publishNow' } } });
    expect(published.response.status).toBe(200);

    const got = await eventually(
      async () => receiver.received.find((r) => r.url === '/e2e' && JSON.parse(r.body).type === 'post.published'),
      60000,
      200,
    );
    const event = new Webhook(hook.secret).verify(got.body, got.headers) as any;
    expect(event).toMatchObject({
      type: 'post.published',
      workspaceId: c.workspaceId,
      data: { postId, profileId, net: 'generalNet', networkPostId: expect.any(String), publishedAt: expect.any(String) },
    });
    const post = await api.GET('/posts/{postId}', { params: { path: { postId } } });
    expect(post.data!.stage).toBe('PUBLISHED');

    // The stage change to PUBLISHED follows the profile's result, never before it.
    const stages = await eventually(
      async () => {
        const mine = receiver.received.filter((r) => r.url === '/e2e').map((r) => JSON.parse(r.body));
        return mine.some((b) => b.type === 'post.stage_changed' && b.data.to === 'PUBLISHED') ? mine : null;
      },
      30000,
      200,
    );
    const order = stages.filter((b) => b.data.postId === postId).map((b) => `${b.type}${b.data.to ? `:${b.data.to}` : ''}`);
    expect(order.indexOf('post.published')).toBeLessThan(order.indexOf('post.stage_changed:PUBLISHED'));

    const log = await eventually(
      async () => {
        const res = await api.GET('/webhooks/{webhookId}/deliveries', { params: { path: { webhookId: hook.id } } });
        return res.data?.items.some((d) => d.eventType === 'post.published' && d.status === 'DELIVERED') ? res.data : null;
      },
      30000,
      300,
    );
    expect(log.items.find((d) => d.eventType === 'post.published')).toMatchObject({
      id: got.headers['webhook-id'],
      attempts: 1,
      responseStatusCode: 200,
    });

    // Another workspace sees none of it.
    const other = await workspace('E2E webhooks other');
    expect(
      (await apiClient(system, other).GET('/webhooks/{webhookId}', { params: { path: { webhookId: hook.id } } })).response.status,
    ).toBe(404);
  }, 180000);

  it('rotates an endpoint secret through the gateway, once per Idempotency-Key, and only in its own workspace', async () => {
    const { workspace } = client;
    const c: Creds = await workspace('E2E webhooks rotation');
    const created = await apiClient(system, c).POST('/webhooks', {
      body: { url: `https://127.0.0.1:${receiver.port}/e2e-rotate`, eventTypes: ['media.ready'] },
    });
    expect(created.response.status).toBe(201);
    const hook = created.data!;
    const rotate = async (creds: Creds, key: string, body: { graceSeconds?: number }) => {
      const res = await apiClient(system, creds).POST('/webhooks/{webhookId}/rotate-secret', {
        params: { path: { webhookId: hook.id }, header: { 'Idempotency-Key': key } },
        body,
      });
      return { status: res.response.status, data: res.data, error: res.error };
    };
    const key = `rotate-${Date.now()}`;
    const first = await rotate(c, key, { graceSeconds: 3600 });
    expect(first.status).toBe(200);
    expect(first.data).toMatchObject({
      id: hook.id,
      secret: expect.stringMatching(/^whsec_/),
      previousSecretExpiresAt: expect.any(String),
    });
    expect(first.data!.secret).not.toBe(hook.secret);
    // The same key and body: the same answer again, not a second rotation.
    const again = await rotate(c, key, { graceSeconds: 3600 });
    expect([again.status, again.data?.secret]).toEqual([200, first.data!.secret]);
    const invalid = await rotate(c, `${key}-bad`, { graceSeconds: 604801 });
    expect([invalid.status, invalid.error?.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const other = await workspace('E2E webhooks rotation other');
    const foreign = await rotate(other, `${key}-other`, {});
    expect([foreign.status, foreign.error?.error.code]).toEqual([404, 'WEBHOOK_NOT_FOUND']);
  }, 60000);
});
