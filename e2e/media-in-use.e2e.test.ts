import sharp from 'sharp';
import { Broker } from '@social/events';
import { createTestVhost, testEnv, TestSystem, type TestVhost } from '@social/testkit';

// DELETE /media/{id} against the real posts service: media asks posts (gRPC CountMediaUsage) whether
// a scheduled post uses the media. The whole path as processes through the gateway: sandbox
// profiles, a MEDIA post scheduled far ahead (nothing is dispatched), the media library.
let vhost: TestVhost;
let system: TestSystem;
let gw: string;

beforeAll(async () => {
  vhost = await createTestVhost(testEnv()['AMQP_URL']!);
  system = await TestSystem.start({ AMQP_URL: vhost.amqpUrl }, [
    'network-sandbox',
    'posts',
    'media',
    'media-worker',
    'competitors',
    'gateway',
  ]);
  gw = system.gatewayUrl;
  // Connecting sandbox profiles asks insights for a backfill; this vhost has no insights queue
  // unless one is declared, and competitors refuses an unroutable event.
  const sink = await Broker.connect({
    url: vhost.amqpUrl,
    connectionName: 'e2e-sink',
    topology: {
      exchanges: [{ name: 'social.profiles', type: 'topic' }],
      queues: [{ name: 'e2e.collection-sink', bindings: [{ exchange: 'social.profiles', routingKey: 'insights.collection.requested' }] }],
    },
  });
  await sink.close();
}, 240000);

afterAll(async () => {
  await system?.destroy();
  await vhost?.drop();
}, 60000);

interface Creds {
  apiId: string;
  apiKey: string;
  profiles: { id: string; net: { code: string } }[];
}
const workspace = (): Promise<Creds> => system.admin(['workspace', 'create', '--name', 'E2E media in use', '--sandbox-profiles', '--json']);
const call = async (c: Creds, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${gw}/v2${path}`, {
    method,
    headers: { 'X-API-ID': c.apiId, 'X-API-KEY': c.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const viaGateway = (signed: string) => {
  const u = new URL(signed);
  return `${gw}${u.pathname}${u.search}`;
};

/** A JPEG through the three-step upload, processed by the worker. */
async function uploadedImage(c: Creds): Promise<string> {
  const file = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#336699' } })
    .jpeg()
    .toBuffer();
  const { body: created } = await call(c, 'POST', '/media', { name: 'photo.jpg', destinationType: 'POST_MEDIA' });
  expect(
    (await fetch(viaGateway(created.uploadUrl), { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: file })).status,
  ).toBe(201);
  expect((await call(c, 'PATCH', `/media/${created.id}`)).status).toBe(200);
  for (let i = 0; i < 300; i++) {
    const { body: media } = await call(c, 'GET', `/media/${created.id}`);
    if (media.status === 'SUCCESS') return media.id;
    if (media.status !== 'PROCESSING') throw new Error(`media ended ${media.status}: ${media.errorReason}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('media still PROCESSING');
}

describe('deleting a media that posts use, with the real posts service', () => {
  it('refuses with 409 MEDIA_IN_USE while a scheduled post uses it, keeps it, and deletes it once the post is unscheduled', async () => {
    const c = await workspace();
    const mediaId = await uploadedImage(c);
    const profile = c.profiles.find((p) => p.net.code === 'generalNet')!.id;
    const post = await call(c, 'POST', '/posts', {
      type: 'MEDIA',
      profileIds: [profile],
      publishAt: new Date(Date.now() + 24 * 3600 * 1000).toISOString(),
      captions: [{ plainText: 'Our new storefront' }],
      medias: [{ mediaFiles: [{ mediaLibId: mediaId }] }],
    });
    expect(post.status).toBe(201);
    expect((await call(c, 'PATCH', `/posts/${post.body.id}/stage/schedule`)).body.stage).toBe('SCHEDULED');

    const refused = await call(c, 'DELETE', `/media/${mediaId}`);

    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: {
        code: 'MEDIA_IN_USE',
        message: expect.stringMatching(/used by 1 scheduled post/),
        details: [],
        requestId: expect.any(String),
      },
    });
    expect((await call(c, 'GET', `/media/${mediaId}`)).body.status).toBe('SUCCESS');

    expect((await call(c, 'PATCH', `/posts/${post.body.id}/stage/unschedule`)).body.stage).toBe('DRAFT');
    const deleted = await call(c, 'DELETE', `/media/${mediaId}`);

    expect(deleted).toEqual({ status: 200, body: { success: true } });
    expect((await call(c, 'GET', `/media/${mediaId}`)).status).toBe(404);
  });
});
