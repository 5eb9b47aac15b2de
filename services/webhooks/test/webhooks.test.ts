import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { AtRestCipher } from '@social/at-rest';
import { domainEventsTopology, mediaReadyEvent, postPublishedEvent, postStageChangedEvent } from '@social/contracts';
import { Broker } from '@social/events';
import { setLogLevel } from '@social/logger';
import { closeMongo, connectMongo, type Connection } from '@social/mongo';
import {
  createTestVhost,
  dropDatabases,
  eventually,
  internalHeaders,
  startWebhookReceiver,
  testEnv,
  type TestVhost,
  type WebhookReceiver,
} from '@social/testkit';
import type { ResolvedAddress } from '@social/url-guard';
import { loadWebhooksConfig, webhooksDbName } from '../src/config';
import { deliveryModel, type DeliveryDoc } from '../src/data/delivery.model';
import { endpointModel } from '../src/data/endpoint.model';
import { WebhooksService } from '../src/webhooks-service';

setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

const HOST = 'hooks.example.test';
/** Test DNS: names to answers; a list answers in turn (the last one repeats). */
const dns = new Map<string, string[]>();
const lookups = new Map<string, number>();
const resolver = async (host: string): Promise<ResolvedAddress[]> => {
  const answers = dns.get(host);
  if (!answers) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  const n = lookups.get(host) ?? 0;
  lookups.set(host, n + 1);
  const address = answers[Math.min(n, answers.length - 1)]!;
  return [{ address, family: 4 }];
};

let vhost: TestVhost;
let env: Record<string, string>;
let service: WebhooksService;
let broker: Broker;
let receiver: WebhookReceiver;
let base: string;
let mongo: Connection;
let seq = 0;

const api = async (ws: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: internalHeaders('webhooks', ws),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

const newWorkspace = () => `ws_${Date.now().toString(36)}_${++seq}`;

async function createEndpoint(ws: string, eventTypes: string[], path = `/hook/${++seq}`) {
  const res = await api(ws, 'POST', '/webhooks', { url: receiver.url(HOST, path), eventTypes });
  expect(res.status).toBe(201);
  return { ...(res.body as { id: string; secret: string; url: string }), path };
}

beforeAll(async () => {
  const base0 = testEnv();
  vhost = await createTestVhost(base0['AMQP_URL']!);
  receiver = await startWebhookReceiver([HOST, '*.example.test']);
  dns.set(HOST, ['127.0.0.1']);
  env = {
    ...base0,
    AMQP_URL: vhost.amqpUrl,
    WEBHOOKS_PORT: '0',
    WEBHOOKS_ALLOW_CIDRS: '127.0.0.1/32',
    WEBHOOKS_TIMEOUT_MS: '700',
    WEBHOOKS_RETRY_DELAYS_MS: '200,400',
    WEBHOOKS_RETRY_WINDOW_MS: '5000',
    WEBHOOKS_SWEEP_INTERVAL_MS: '500',
    WEBHOOKS_SWEEP_GRACE_MS: '3000',
    WEBHOOKS_DELIVERY_RETENTION_DAYS: '30',
    WEBHOOKS_PRUNE_INTERVAL_MS: '300',
    WEBHOOKS_PRUNE_BATCH_SIZE: '2',
    SHUTDOWN_GRACE_MS: '2000',
  };
  service = await WebhooksService.create(loadWebhooksConfig(env), { resolver, ca: receiver.ca });
  base = `http://127.0.0.1:${service.port}/v2`;
  broker = await Broker.connect({ url: vhost.amqpUrl, connectionName: 'webhooks-test-publisher', topology: domainEventsTopology() });
  mongo = await connectMongo({ url: env['MONGO_URL']!, dbName: webhooksDbName(loadWebhooksConfig(env)) });
});

afterAll(async () => {
  await closeMongo(mongo);
  await broker?.close(2000);
  await service?.destroy();
  await receiver?.close();
  await vhost?.drop();
  if (env) await dropDatabases(env['MONGO_URL']!, env['MONGO_DB_PREFIX']!);
});

beforeEach(() => {
  receiver.state.behave = () => 200;
});

const publishedPayload = (postId: string, postVersion: number) => ({
  postId,
  profileId: 'prof_1',
  net: 'generalNet',
  networkPostId: `np_${postId}`,
  publishedAt: new Date().toISOString(),
  postVersion,
});

async function deliveries(ws: string, endpointId: string) {
  const res = await api(ws, 'GET', `/webhooks/${endpointId}/deliveries?take=100`);
  expect(res.status).toBe(200);
  return res.body as { items: any[]; total: number; skip: number; take: number };
}

describe('endpoints', () => {
  it('creates an endpoint and shows its whsec_ secret only in the answer to the creation', async () => {
    const ws = newWorkspace();
    const created = await api(ws, 'POST', '/webhooks', {
      url: receiver.url(HOST),
      eventTypes: ['post.published', 'media.ready'],
      description: 'ops',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^we_/),
      url: receiver.url(HOST),
      eventTypes: ['post.published', 'media.ready'],
      description: 'ops',
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const one = await api(ws, 'GET', `/webhooks/${created.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body.secret).toBeUndefined();
    const list = await api(ws, 'GET', '/webhooks');
    expect(list.body).toMatchObject({ total: 1, skip: 0, take: 20, items: [{ id: created.body.id }] });
    expect(list.body.items[0].secret).toBeUndefined();
  });

  it.each([
    [{ eventTypes: ['post.published'] }, '/url'],
    [{ url: 'https://hooks.example.test/x' }, '/eventTypes'],
    [{ url: 'https://hooks.example.test/x', eventTypes: [] }, '/eventTypes'],
    [{ url: 'https://hooks.example.test/x', eventTypes: ['post.deleted'] }, '/eventTypes/0'],
    [{ url: 'https://hooks.example.test/x', eventTypes: ['post.published'], secret: 'mine' }, '/secret'],
  ])('refuses %j with 400 VALIDATION_FAILED naming %s', async (body, path) => {
    const res = await api(newWorkspace(), 'POST', '/webhooks', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it.each([
    ['http://hooks.example.test/x', /must use https/],
    ['https://10.0.0.7/x', /private/],
    ['https://169.254.169.254/latest', /link-local/],
    ['https://localhost/x', /local host name/],
    ['https://internal.example.test/x', /resolves to a non-public address/],
    ['https://nowhere.example.test/x', /does not resolve/],
  ])('refuses the endpoint URL %s with 400 INVALID_WEBHOOK_URL (the from-url rules)', async (url, reason) => {
    dns.set('internal.example.test', ['10.1.2.3']);
    const res = await api(newWorkspace(), 'POST', '/webhooks', { url, eventTypes: ['post.published'] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_WEBHOOK_URL');
    expect(res.body.error.message).toMatch(reason);
  });

  it("answers 404 for another workspace's endpoint, its deliveries and its replay, and deletes only its own", async () => {
    const owner = newWorkspace();
    const other = newWorkspace();
    const e = await createEndpoint(owner, ['post.published']);
    for (const [method, path] of [
      ['GET', `/webhooks/${e.id}`],
      ['DELETE', `/webhooks/${e.id}`],
      ['GET', `/webhooks/${e.id}/deliveries`],
      ['POST', `/webhooks/${e.id}/deliveries/msg_x/replay`],
      ['POST', `/webhooks/${e.id}/rotate-secret`],
    ] as const) {
      const res = await api(other, method, path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('WEBHOOK_NOT_FOUND');
    }
    expect((await api(other, 'GET', '/webhooks')).body.total).toBe(0);
    expect((await api(owner, 'DELETE', `/webhooks/${e.id}`)).body).toEqual({ success: true });
    expect((await api(owner, 'GET', `/webhooks/${e.id}`)).status).toBe(404);
  });

  it('answers 400 for a take out of range on the delivery log', async () => {
    const ws = newWorkspace();
    const e = await createEndpoint(ws, ['post.published']);
    const res = await api(ws, 'GET', `/webhooks/${e.id}/deliveries?take=1000`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('delivery', () => {
  it('delivers a subscribed event signed the Standard Webhooks way, verified by an independent implementation', async () => {
    const ws = newWorkspace();
    const e = await createEndpoint(ws, ['post.published']);
    const unsubscribed = await createEndpoint(ws, ['media.ready']);
    const otherWs = await createEndpoint(newWorkspace(), ['post.published']);
    const env1 = await broker.publish(postPublishedEvent, publishedPayload('post_sig', 3), { workspaceId: ws });

    const got = await eventually(async () => receiver.received.find((r) => r.url === e.path && r.answer === 200));
    // The standardwebhooks package (npm) verifies signature, timestamp and id.
    const parsed = new Webhook(e.secret).verify(got.body, got.headers) as any;
    expect(parsed).toMatchObject({
      id: env1.id,
      type: 'post.published',
      workspaceId: ws,
      data: { postId: 'post_sig', profileId: 'prof_1', networkPostId: 'np_post_sig', postVersion: 3 },
    });
    // And by hand, from the definition: v1,base64(HMAC-SHA256(base64decode(secret), id.ts.body)).
    const key = Buffer.from(e.secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key)
      .update(`${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.${got.body}`)
      .digest('base64');
    expect(got.headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(() => new Webhook(e.secret).verify(got.body.replace('post_sig', 'post_sih'), got.headers)).toThrow();

    const log = await eventually(async () => {
      const l = await deliveries(ws, e.id);
      return l.items[0]?.status === 'DELIVERED' ? l : undefined;
    });
    expect(log).toMatchObject({ total: 1, skip: 0, take: 100 });
    expect(log.items[0]).toMatchObject({
      id: got.headers['webhook-id'],
      eventId: env1.id,
      eventType: 'post.published',
      status: 'DELIVERED',
      attempts: 1,
      responseStatusCode: 200,
      lastError: null,
      deliveredAt: expect.any(String),
    });
    expect(receiver.received.filter((r) => r.url === unsubscribed.path || r.url === otherWs.path)).toEqual([]);
  });

  it('retries a receiver that fails (500) and one that times out, until it recovers; the log shows each attempt', async () => {
    const ws = newWorkspace();
    const failing = await createEndpoint(ws, ['media.ready']);
    const slow = await createEndpoint(ws, ['post.published']);
    receiver.state.behave = (body, n) => {
      if (body?.type === 'media.ready') return n <= 2 ? 500 : 200;
      return n === 1 ? 'timeout' : 200;
    };
    await broker.publish(mediaReadyEvent, { mediaId: 'm1', kind: 'IMAGE', readyAt: new Date().toISOString() }, { workspaceId: ws });
    await broker.publish(postPublishedEvent, publishedPayload('post_slow', 1), { workspaceId: ws });

    const done = await eventually(async () => {
      const [a, b] = await Promise.all([deliveries(ws, failing.id), deliveries(ws, slow.id)]);
      return a.items[0]?.status === 'DELIVERED' && b.items[0]?.status === 'DELIVERED' ? [a.items[0], b.items[0]] : undefined;
    }, 20000);
    expect(done[0]).toMatchObject({ attempts: 3, responseStatusCode: 200 });
    expect(done[1]).toMatchObject({ attempts: 2, responseStatusCode: 200 });
    const tries = receiver.received.filter((r) => r.url === failing.path);
    expect(tries.map((r) => r.answer)).toEqual([500, 500, 200]);
    // One webhook-id for every attempt of one delivery, each signed anew.
    expect(new Set(tries.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const t of tries) expect(() => new Webhook(failing.secret).verify(t.body, t.headers)).not.toThrow();
    expect(receiver.received.filter((r) => r.url === slow.path).map((r) => r.answer)).toEqual(['timeout', 200]);
  });

  it('shows the last error while retrying, and FAILED once the retry window is over; a replay then delivers it', async () => {
    const ws = newWorkspace();
    const e = await createEndpoint(ws, ['media.ready']);
    let down = true;
    receiver.state.behave = (body) => (body?.data?.mediaId === 'm_down' && down ? 503 : 200);
    await broker.publish(mediaReadyEvent, { mediaId: 'm_down', kind: 'IMAGE', readyAt: new Date().toISOString() }, { workspaceId: ws });
    const retrying = await eventually(async () => (await deliveries(ws, e.id)).items.find((d) => d.lastError && d.status === 'PENDING'));
    expect(retrying).toMatchObject({
      responseStatusCode: 503,
      lastError: 'the endpoint answered HTTP 503',
      nextAttemptAt: expect.any(String),
    });

    const failed = await eventually(async () => (await deliveries(ws, e.id)).items.find((d) => d.status === 'FAILED'), 20000);
    expect(failed.attempts).toBeGreaterThan(2);
    expect(failed.nextAttemptAt).toBeNull();

    down = false;
    const replay = await api(ws, 'POST', `/webhooks/${e.id}/deliveries/${failed.id}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ id: failed.id, status: 'PENDING' });
    const delivered = await eventually(async () => (await deliveries(ws, e.id)).items.find((d) => d.status === 'DELIVERED'));
    expect(delivered).toMatchObject({ id: failed.id, attempts: failed.attempts + 1, responseStatusCode: 200 });
    const last = receiver.received.filter((r) => r.url === e.path).at(-1)!;
    expect(last.headers['webhook-id']).toBe(failed.id);
    expect(() => new Webhook(e.secret).verify(last.body, last.headers)).not.toThrow();
  });

  it('replays a delivered delivery with the same id and body; a replay of an unknown delivery is 404', async () => {
    const ws = newWorkspace();
    const e = await createEndpoint(ws, ['media.ready']);
    await broker.publish(mediaReadyEvent, { mediaId: 'm_replay', kind: 'VIDEO', readyAt: new Date().toISOString() }, { workspaceId: ws });
    const first = await eventually(async () => (await deliveries(ws, e.id)).items.find((d) => d.status === 'DELIVERED'));
    const res = await api(ws, 'POST', `/webhooks/${e.id}/deliveries/${first.id}/replay`);
    expect(res.status).toBe(202);
    await eventually(async () => receiver.received.filter((r) => r.url === e.path).length === 2);
    const [a, b] = receiver.received.filter((r) => r.url === e.path);
    expect(b!.headers['webhook-id']).toBe(a!.headers['webhook-id']);
    expect(b!.body).toBe(a!.body);
    const missing = await api(ws, 'POST', `/webhooks/${e.id}/deliveries/msg_nope/replay`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('DELIVERY_NOT_FOUND');
  });

  it('delivers the events of one post in order: a later event waits while an earlier one is retried', async () => {
    const ws = newWorkspace();
    const e = await createEndpoint(ws, ['post.published', 'post.stage_changed']);
    receiver.state.behave = (body, n) => (body?.type === 'post.published' && body?.data?.postId === 'post_ord' && n <= 2 ? 500 : 200);
    const at = new Date().toISOString();
    await broker.publish(postPublishedEvent, publishedPayload('post_ord', 4), { workspaceId: ws });
    await broker.publish(
      postStageChangedEvent,
      { postId: 'post_ord', from: 'SCHEDULED', to: 'PUBLISHED', operation: 'publishResult', at, postVersion: 4 },
      { workspaceId: ws },
    );
    await broker.publish(
      postStageChangedEvent,
      { postId: 'post_ord', from: 'PUBLISHED', to: 'ARCHIVE', operation: 'archive', at, postVersion: 5 },
      { workspaceId: ws },
    );
    // Another post is not held back by this one.
    await broker.publish(postPublishedEvent, publishedPayload('post_free', 1), { workspaceId: ws });

    await eventually(async () => (await deliveries(ws, e.id)).items.filter((d) => d.status === 'DELIVERED').length === 4, 20000);
    const seen = receiver.received
      .filter((r) => r.url === e.path)
      .map((r) => {
        const b = JSON.parse(r.body);
        return `${b.data.postId}:${b.type}:${b.data.to ?? ''}:${r.answer}`;
      });
    const ordered = seen.filter((s) => s.startsWith('post_ord:'));
    expect(ordered).toEqual([
      'post_ord:post.published::500',
      'post_ord:post.published::500',
      'post_ord:post.published::200',
      'post_ord:post.stage_changed:PUBLISHED:200',
      'post_ord:post.stage_changed:ARCHIVE:200',
    ]);
    expect(seen.indexOf('post_free:post.published::200')).toBeLessThan(seen.indexOf('post_ord:post.published::200'));
  });

  it('re-checks the address at connect time: a host that now resolves to a private address is refused', async () => {
    const ws = newWorkspace();
    const host = 'rebind.example.test';
    dns.set(host, ['127.0.0.1', '10.9.9.9']);
    lookups.delete(host);
    const created = await api(ws, 'POST', '/webhooks', { url: receiver.url(host, '/rebind'), eventTypes: ['media.ready'] });
    expect(created.status).toBe(201);
    await broker.publish(mediaReadyEvent, { mediaId: 'm_rebind', kind: 'IMAGE', readyAt: new Date().toISOString() }, { workspaceId: ws });
    const tried = await eventually(async () => (await deliveries(ws, created.body.id)).items.find((d) => d.attempts >= 1 && d.lastError));
    expect(tried.lastError).toMatch(/non-public address: 10\.9\.9\.9 is a private address/);
    expect(tried.responseStatusCode).toBeNull();
    expect(receiver.received.filter((r) => r.url === '/rebind')).toEqual([]);
  });
});

/** The v1 signatures of a webhook-signature header, in order. */
const signaturesOf = (header: string | undefined) => (header ?? '').split(' ').filter(Boolean);

/** Whether one `v1,<base64>` entry is the Standard Webhooks signature of the request with this secret. */
function signedWith(entry: string, secret: string, r: { headers: Record<string, string>; body: string }): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const mac = createHmac('sha256', key).update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`).digest('base64');
  return entry === `v1,${mac}`;
}

/** Publishes a media.ready event and waits for the endpoint at `e.path` to accept its delivery. */
async function deliveredTo(ws: string, e: { path: string }, mediaId: string) {
  await broker.publish(mediaReadyEvent, { mediaId, kind: 'IMAGE', readyAt: new Date().toISOString() }, { workspaceId: ws });
  return eventually(async () => receiver.received.find((r) => r.url === e.path && r.answer === 200 && r.body.includes(mediaId)));
}

describe('secret rotation', () => {
  const rotate = (ws: string, id: string, body?: unknown) => api(ws, 'POST', `/webhooks/${id}/rotate-secret`, body);

  it('answers a new whsec_ secret once, and signs with the new and the previous secret during the grace period', async () => {
    const ws = newWorkspace();
    const e = await createEndpoint(ws, ['media.ready']);
    const before = Date.now();
    const res = await rotate(ws, e.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: e.id,
      url: e.url,
      eventTypes: ['media.ready'],
      description: null,
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      previousSecretExpiresAt: expect.any(String),
    });
    const newSecret = res.body.secret as string;
    expect(newSecret).not.toBe(e.secret);
    // The default grace period: 24 hours.
    const expires = Date.parse(res.body.previousSecretExpiresAt);
    expect(expires - before).toBeGreaterThanOrEqual(86_400_000 - 1000);
    expect(expires - Date.now()).toBeLessThanOrEqual(86_400_000);
    expect((await api(ws, 'GET', `/webhooks/${e.id}`)).body.secret).toBeUndefined();

    const got = await deliveredTo(ws, e, 'm_rot_both');
    const sigs = signaturesOf(got.headers['webhook-signature']);
    expect(sigs).toHaveLength(2);
    // The new secret's signature first, then the previous one's; each verifies with its own secret only.
    expect([signedWith(sigs[0]!, newSecret, got), signedWith(sigs[1]!, e.secret, got)]).toEqual([true, true]);
    expect([signedWith(sigs[0]!, e.secret, got), signedWith(sigs[1]!, newSecret, got)]).toEqual([false, false]);
    // A receiver that knows either secret accepts it (the standardwebhooks package).
    expect(() => new Webhook(newSecret).verify(got.body, got.headers)).not.toThrow();
    expect(() => new Webhook(e.secret).verify(got.body, got.headers)).not.toThrow();
  });

  it('signs with the new secret only once the grace period is over (graceSeconds), or at once with 0', async () => {
    const ws = newWorkspace();
    const e = await createEndpoint(ws, ['media.ready']);
    const short = await rotate(ws, e.id, { graceSeconds: 1 });
    expect(short.status).toBe(200);
    const expires = Date.parse(short.body.previousSecretExpiresAt);
    expect(expires - Date.now()).toBeLessThanOrEqual(1000);
    await new Promise((r) => setTimeout(r, Math.max(0, expires - Date.now()) + 50));

    const got = await deliveredTo(ws, e, 'm_rot_after');
    expect(signaturesOf(got.headers['webhook-signature'])).toHaveLength(1);
    expect(() => new Webhook(short.body.secret).verify(got.body, got.headers)).not.toThrow();
    expect(() => new Webhook(e.secret).verify(got.body, got.headers)).toThrow();

    const now = await rotate(ws, e.id, { graceSeconds: 0 });
    expect(now.status).toBe(200);
    expect(now.body.previousSecretExpiresAt).toBeNull();
    const got2 = await deliveredTo(ws, e, 'm_rot_zero');
    expect(signaturesOf(got2.headers['webhook-signature'])).toHaveLength(1);
    expect(() => new Webhook(now.body.secret).verify(got2.body, got2.headers)).not.toThrow();
    expect(() => new Webhook(short.body.secret).verify(got2.body, got2.headers)).toThrow();
  });

  it.each([[{ graceSeconds: -1 }], [{ graceSeconds: 604_801 }], [{ graceSeconds: 1.5 }], [{ graceSeconds: '60' }], [{ secret: 'mine' }]])(
    'refuses %j with 400 VALIDATION_FAILED and keeps the secret',
    async (body) => {
      const ws = newWorkspace();
      const e = await createEndpoint(ws, ['media.ready']);
      const res = await rotate(ws, e.id, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      const got = await deliveredTo(ws, e, `m_rot_kept_${seq++}`);
      expect(signaturesOf(got.headers['webhook-signature'])).toHaveLength(1);
      expect(() => new Webhook(e.secret).verify(got.body, got.headers)).not.toThrow();
    },
  );
});

describe('secrets at rest', () => {
  const stored = (id: string) => endpointModel(mongo).findById(id).lean();

  it('stores the secret and the previous secret encrypted, never in clear, and still signs with both', async () => {
    const ws = newWorkspace();
    const e = await createEndpoint(ws, ['media.ready']);
    const rotated = await api(ws, 'POST', `/webhooks/${e.id}/rotate-secret`);
    expect(rotated.status).toBe(200);

    const doc = (await stored(e.id))!;
    const raw = JSON.stringify(doc);
    for (const secret of [e.secret, rotated.body.secret as string]) {
      expect(raw).not.toContain(secret);
      expect(raw).not.toContain(secret.slice('whsec_'.length, -1)); // the key bytes, in any wrapping
    }
    expect([doc.secret, doc.previousSecret]).toEqual([expect.stringMatching(/^v1:/), expect.stringMatching(/^v1:/)]);

    const got = await deliveredTo(ws, e, 'm_at_rest');
    expect(() => new Webhook(rotated.body.secret).verify(got.body, got.headers)).not.toThrow();
    expect(() => new Webhook(e.secret).verify(got.body, got.headers)).not.toThrow();
  });

  it('after an upgrade, signs with secrets an earlier version stored in clear, and encrypts them when a process starts', async () => {
    const ws = newWorkspace();
    const path = `/hook/legacy-${++seq}`;
    const id = `we_legacy${Date.now().toString(16)}${seq}`;
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwQvNn4IimUqEu';
    const previousSecret = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD2bx8TZ6lSXQ=';
    // As a version before encryption at rest wrote it.
    await endpointModel(mongo).collection.insertOne({
      _id: id as never,
      workspaceId: ws,
      url: receiver.url(HOST, path),
      eventTypes: ['media.ready'],
      description: null,
      secret,
      previousSecret,
      previousSecretExpiresAt: new Date(Date.now() + 3_600_000),
      createdAt: new Date(),
    });

    const before = await deliveredTo(ws, { path }, 'm_legacy_before');
    expect(() => new Webhook(secret).verify(before.body, before.headers)).not.toThrow();
    expect(() => new Webhook(previousSecret).verify(before.body, before.headers)).not.toThrow();

    // A second process starting (a rolling upgrade) encrypts what it finds in clear.
    const other = await WebhooksService.create(loadWebhooksConfig(env), { resolver, ca: receiver.ca });
    await other.destroy();
    const doc = (await stored(id))!;
    expect(JSON.stringify(doc)).not.toContain(secret);
    expect(JSON.stringify(doc)).not.toContain(previousSecret);
    expect([doc.secret, doc.previousSecret]).toEqual([expect.stringMatching(/^v1:/), expect.stringMatching(/^v1:/)]);

    await new Promise((r) => setTimeout(r, 2100)); // past the 2 s endpoint cache of the delivering process
    const after = await deliveredTo(ws, { path }, 'm_legacy_after');
    expect(() => new Webhook(secret).verify(after.body, after.headers)).not.toThrow();
    expect(() => new Webhook(previousSecret).verify(after.body, after.headers)).not.toThrow();
    const rotated = await api(ws, 'POST', `/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
  });

  it('refuses to start under a WEBHOOKS_SECRET_KEY that does not decrypt the stored secrets, naming it', async () => {
    const ws = newWorkspace();
    const e = await createEndpoint(ws, ['media.ready']);
    const before = (await stored(e.id))!.secret;
    const foreign = new AtRestCipher('a-different-key-of-enough-length-here').encrypt(e.secret);
    await endpointModel(mongo).updateOne({ _id: e.id }, { $set: { secret: foreign } });
    try {
      // A process that did start is stopped again, so a failure here leaves nothing running.
      const started = WebhooksService.create(loadWebhooksConfig(env), { resolver, ca: receiver.ca }).then((s) => s.destroy());
      await expect(started).rejects.toThrow(/WEBHOOKS_SECRET_KEY/);
    } finally {
      await endpointModel(mongo).updateOne({ _id: e.id }, { $set: { secret: before } });
    }
  });
});

describe('pruning the delivery log', () => {
  const DAY = 86_400_000;

  function stored(ws: string, endpointId: string, id: string, state: DeliveryDoc['state'], ageMs: number, over: Partial<DeliveryDoc> = {}) {
    const at = new Date(Date.now() - ageMs);
    return {
      _id: id,
      workspaceId: ws,
      endpointId,
      eventId: `ev_${id}`,
      eventType: 'media.ready',
      body: '{}',
      occurredAt: at,
      orderKey: null,
      orderSeq: 0,
      state,
      attempts: 1,
      lastStatusCode: state === 'DELIVERED' ? 200 : 500,
      lastError: null,
      lastAttemptAt: at,
      // Pending ones are not due, so the sweep leaves them alone.
      nextAttemptAt: state === 'PENDING' ? new Date(Date.now() + DAY) : null,
      deliveredAt: state === 'DELIVERED' ? at : null,
      windowStart: at,
      createdAt: at,
      updatedAt: at,
      ...over,
    } satisfies DeliveryDoc;
  }

  it('deletes delivered and failed deliveries older than the retention, in batches, and keeps pending and recent ones', async () => {
    const ws = newWorkspace();
    const e = await createEndpoint(ws, ['media.ready']);
    const p = `msg_prune_${seq}_`;
    await deliveryModel(mongo).insertMany([
      // Five old settled ones: more than two batches of WEBHOOKS_PRUNE_BATCH_SIZE=2 per state.
      stored(ws, e.id, `${p}old_d1`, 'DELIVERED', 31 * DAY),
      stored(ws, e.id, `${p}old_d2`, 'DELIVERED', 40 * DAY),
      stored(ws, e.id, `${p}old_d3`, 'DELIVERED', 365 * DAY),
      stored(ws, e.id, `${p}old_f1`, 'FAILED', 31 * DAY),
      stored(ws, e.id, `${p}old_f2`, 'FAILED', 90 * DAY),
      // Kept: still pending although old, settled within the retention, and an old one replayed lately.
      stored(ws, e.id, `${p}old_pending`, 'PENDING', 60 * DAY),
      stored(ws, e.id, `${p}recent_d`, 'DELIVERED', 29 * DAY),
      stored(ws, e.id, `${p}recent_f`, 'FAILED', 1000),
      stored(ws, e.id, `${p}replayed`, 'DELIVERED', 2 * DAY, { createdAt: new Date(Date.now() - 60 * DAY) }),
    ]);
    const kept = await eventually(async () => {
      const l = await deliveries(ws, e.id);
      return l.total === 4 ? l : undefined;
    });
    expect(kept.items.map((d) => d.id.slice(p.length)).sort()).toEqual(['old_pending', 'recent_d', 'recent_f', 'replayed']);
    // Nothing else goes on later runs.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await deliveries(ws, e.id)).total).toBe(4);
  });
});
