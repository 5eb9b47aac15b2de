import { randomUUID } from 'node:crypto';
import { createTestVhost, eventually, sleep, testEnv, TestSystem, type TestVhost } from '@social/testkit';
import { apiClient, type ApiCreds } from './support/api';
import { traced, tracedWorkspace, uploadTracedImage } from './support/traced';

// Tracing a request: the X-Request-Id a client sends to the gateway is on every log line of the
// work it causes, in every process: HTTP, gRPC metadata, the stored publish task, event envelopes
// (correlationId) and the network adapter's calls to the sandbox.
let vhost: TestVhost;
let system: TestSystem;

beforeAll(async () => {
  vhost = await createTestVhost(testEnv()['AMQP_URL']!);
  system = await TestSystem.start({
    AMQP_URL: vhost.amqpUrl,
    PLANS: JSON.stringify({ free: { competitors: 5, requestsPerWindow: 100000000 } }),
    POSTS_DISPATCH_TICK_MS: '1000',
    SHUTDOWN_GRACE_MS: '3000',
  });
}, 240000);

afterAll(async () => {
  await system?.destroy();
  await vhost?.drop();
}, 60000);

const api = (c: ApiCreds) => apiClient(system, c);
const workspace = () => tracedWorkspace(system, 'E2E tracing');
const uploadImage = (c: ApiCreds, requestId: string) => uploadTracedImage(system, c, requestId);

/** A log line a hop must have written with the traced id; values may be regular expressions. */
interface Hop {
  hop: string;
  process: string;
  line: Record<string, string | RegExp>;
}

const parsed = (line: string): Record<string, unknown> | null => {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
};
const matches = (line: Record<string, unknown>, want: Record<string, string | RegExp>) =>
  Object.entries(want).every(([k, v]) => (v instanceof RegExp ? typeof line[k] === 'string' && v.test(line[k] as string) : line[k] === v));
const hasLine = (h: Hop, requestId: string) =>
  system.logOf(h.process).some((l) => {
    const j = parsed(l);
    return j !== null && j['requestId'] === requestId && matches(j, h.line);
  });

/** The hops that wrote no line with the id; waits a while, since processes log asynchronously. */
async function hopsWithout(requestId: string, hops: Hop[]): Promise<string[]> {
  const missing = () => hops.filter((h) => !hasLine(h, requestId)).map((h) => `${h.process}: ${h.hop}`);
  for (let i = 0; i < 150 && missing().length > 0; i++) await sleep(200);
  return missing();
}

describe('one request id through the whole system', () => {
  // schedule: the jobs leave later, from the dispatcher's tick, with the id stored on the publish
  // task; publishNow: they leave at once, while the request is still being answered.
  it.each(['schedule', 'publishNow'] as const)(
    'finds a %s in the gateway, posts, the publisher, the gRPC servers it called and the network sandbox',
    async (op) => {
      const c = await workspace();
      const mediaId = await uploadImage(c, `trace-upload-${randomUUID()}`);
      const created = await api(c).POST('/posts', {
        body: {
          type: 'MEDIA',
          profileIds: [c.profileId],
          captions: [{ plainText: `Traced from end to end (${op})` }],
          medias: [{ mediaFiles: [{ mediaLibId: mediaId }] }],
          ...(op === 'schedule' ? { publishAt: new Date(Date.now() + 8000).toISOString() } : {}),
        },
      });
      expect(created.response.status).toBe(201);
      const postId = created.data!.id;
      const requestId = `trace-${op}-${randomUUID()}`;

      const changed = await api(c).PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId, op } }, ...traced(requestId) });
      expect([changed.response.status, changed.response.headers.get('x-request-id')]).toEqual([200, requestId]);
      const post = await eventually(
        async () => {
          const body = (await api(c).GET('/posts/{postId}', { params: { path: { postId } } })).data;
          return body?.stage === 'PUBLISHED' || body?.stage === 'PUBLISHED_FAILED' ? body : null;
        },
        60000,
        300,
      );
      expect(post.stage).toBe('PUBLISHED');

      const stagePath = `/v2/posts/${postId}/stage/${op}`;
      const missing = await hopsWithout(requestId, [
        { hop: 'API request', process: 'gateway', line: { component: 'http:access', method: 'PATCH', path: stagePath } },
        {
          hop: 'proxied request',
          process: 'posts',
          line: { component: 'http:access', method: 'PATCH', path: stagePath, workspaceId: c.workspaceId },
        },
        {
          hop: 'validation asks competitors (gRPC from posts)',
          process: 'competitors',
          line: { message: 'rpc', method: '/competitors.v1.ProfilesService/GetProfiles', caller: 'posts' },
        },
        {
          hop: 'publish jobs dispatched',
          process: 'posts',
          line: { component: 'posts:dispatch', message: 'publish jobs dispatched', postId },
        },
        // The job carries the revision's content, so the publisher does not ask posts for it.
        {
          hop: 'job started (post.publish.requested correlationId)',
          process: 'publisher',
          line: { message: 'publish job started', job: new RegExp(`^${postId}:`) },
        },
        {
          hop: 'credentials (gRPC from publisher)',
          process: 'competitors',
          line: { message: 'rpc', method: '/competitors.v1.ProfilesService/GetPublishCredentials', caller: 'publisher', code: 'OK' },
        },
        {
          hop: 'media (gRPC from publisher)',
          process: 'media',
          line: { message: 'rpc', method: '/media.v1.MediaService/BatchGetMedia', caller: 'publisher', code: 'OK' },
        },
        {
          hop: 'publish call (X-Request-Id)',
          process: 'network-sandbox',
          line: { component: 'http:access', method: 'POST', path: /^\/sandbox\/generalNet\/accounts\/[^/]+\/posts$/ },
        },
        { hop: 'job outcome', process: 'publisher', line: { message: 'publish outcome reported', status: 'PUBLISHED' } },
        {
          hop: 'result applied (post.publish.completed correlationId)',
          process: 'posts',
          line: { component: 'posts:results', message: 'publish result applied', postId, status: 'PUBLISHED' },
        },
      ]);

      expect(missing).toEqual([]);
    },
    180000,
  );

  it('finds a media confirmation in the media worker that processed it', async () => {
    const c = await workspace();
    const requestId = `trace-media-${randomUUID()}`;

    await uploadImage(c, requestId);

    const missing = await hopsWithout(requestId, [
      { hop: 'API request', process: 'gateway', line: { component: 'http:access', method: 'PATCH' } },
      { hop: 'confirmation', process: 'media', line: { component: 'http:access', method: 'PATCH' } },
      { hop: 'processing job (media.processing.requested correlationId)', process: 'media-worker', line: { message: 'media processed' } },
    ]);
    expect(missing).toEqual([]);
  }, 120000);

  it('finds a competitor added in the insights collection it started and in its network calls', async () => {
    const c = await workspace();
    const requestId = `trace-competitor-${randomUUID()}`;
    const found = await api(c).GET('/search/profiles', { params: { query: { net: 'generalNet', query: 'coffee' } } });
    expect(found.response.status).toBe(200);

    const added = await api(c).POST('/competitor', { body: { profileId: found.data!.items[0]!.id }, ...traced(requestId) });
    expect(added.response.status).toBe(201);

    const missing = await hopsWithout(requestId, [
      { hop: 'API request', process: 'gateway', line: { component: 'http:access', method: 'POST', path: '/v2/competitor' } },
      { hop: 'competitor added', process: 'competitors', line: { message: 'competitor added' } },
      {
        hop: 'collection job (insights.collection.requested correlationId)',
        process: 'insights-collector',
        line: { message: 'collection done' },
      },
      {
        hop: 'metrics calls of the collection (X-Request-Id)',
        process: 'network-sandbox',
        line: { component: 'http:access', method: 'GET', path: /\/metrics\/(daily|posts)$/ },
      },
    ]);
    expect(missing).toEqual([]);
  }, 120000);
});
