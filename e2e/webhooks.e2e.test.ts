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
    const { call, workspace, profileOf } = client;
    const c: Creds = await workspace('E2E webhooks');
    const hook = await call(c, 'POST', '/webhooks', {
      url: `https://127.0.0.1:${receiver.port}/e2e`,
      eventTypes: ['post.published', 'post.stage_changed'],
    });
    expect(hook.status).toBe(201);
    expect(hook.body.secret).toMatch(/^whsec_/);
    const refused = await call(c, 'POST', '/webhooks', { url: 'https://10.1.1.1/hook', eventTypes: ['post.published'] });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'INVALID_WEBHOOK_URL']);

    const profileId = profileOf(c, 'generalNet');
    const created = await call(c, 'POST', '/posts', {
      type: 'STATUS',
      profileIds: [profileId],
      captions: [{ plainText: 'Hello webhooks' }],
    });
    expect(created.status).toBe(201);
    const postId = created.body.id as string;
    expect((await call(c, 'PATCH', `/posts/${postId}/stage/publishNow`)).status).toBe(200);

    const got = await eventually(
      async () => receiver.received.find((r) => r.url === '/e2e' && JSON.parse(r.body).type === 'post.published'),
      60000,
      200,
    );
    const event = new Webhook(hook.body.secret).verify(got.body, got.headers) as any;
    expect(event).toMatchObject({
      type: 'post.published',
      workspaceId: c.workspaceId,
      data: { postId, profileId, net: 'generalNet', networkPostId: expect.any(String), publishedAt: expect.any(String) },
    });
    const post = await call(c, 'GET', `/posts/${postId}`);
    expect(post.body.stage).toBe('PUBLISHED');

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
        const res = await call(c, 'GET', `/webhooks/${hook.body.id}/deliveries`);
        return res.body.items?.some((d: any) => d.eventType === 'post.published' && d.status === 'DELIVERED') ? res.body : null;
      },
      30000,
      300,
    );
    expect(log.items.find((d: any) => d.eventType === 'post.published')).toMatchObject({
      id: got.headers['webhook-id'],
      attempts: 1,
      responseStatusCode: 200,
    });

    // Another workspace sees none of it.
    const other = await workspace('E2E webhooks other');
    expect((await call(other, 'GET', `/webhooks/${hook.body.id}`)).status).toBe(404);
  }, 180000);

  it('rotates an endpoint secret through the gateway, once per Idempotency-Key, and only in its own workspace', async () => {
    const { call, workspace } = client;
    const c: Creds = await workspace('E2E webhooks rotation');
    const hook = await call(c, 'POST', '/webhooks', { url: `https://127.0.0.1:${receiver.port}/e2e-rotate`, eventTypes: ['media.ready'] });
    expect(hook.status).toBe(201);
    const rotate = async (creds: Creds, key: string, body: unknown) => {
      const res = await fetch(`${system.gatewayUrl}/v2/webhooks/${hook.body.id}/rotate-secret`, {
        method: 'POST',
        headers: { 'X-API-ID': creds.apiId, 'X-API-KEY': creds.apiKey, 'content-type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const key = `rotate-${Date.now()}`;
    const first = await rotate(c, key, { graceSeconds: 3600 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      id: hook.body.id,
      secret: expect.stringMatching(/^whsec_/),
      previousSecretExpiresAt: expect.any(String),
    });
    expect(first.body.secret).not.toBe(hook.body.secret);
    // The same key and body: the same answer again, not a second rotation.
    const again = await rotate(c, key, { graceSeconds: 3600 });
    expect([again.status, again.body.secret]).toEqual([200, first.body.secret]);
    const invalid = await rotate(c, `${key}-bad`, { graceSeconds: 604801 });
    expect([invalid.status, invalid.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const other = await workspace('E2E webhooks rotation other');
    const foreign = await rotate(other, `${key}-other`, {});
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'WEBHOOK_NOT_FOUND']);
  }, 60000);
});
