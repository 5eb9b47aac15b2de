import sharp from 'sharp';
import { Broker } from '@social/events';
import { createTestVhost, testEnv, TestSystem, type TestVhost } from '@social/testkit';
import { apiClient, outcome, viaGateway } from './support/api';

// DELETE /media/{id} against the real posts service: media asks posts (gRPC CountMediaUsage) whether
// a scheduled post uses the media. The whole path as processes through the gateway: sandbox
// profiles, a MEDIA post scheduled far ahead (nothing is dispatched), the media library.
let vhost: TestVhost;
let system: TestSystem;

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
const api = (c: Creds) => apiClient(system, c);

/** A JPEG through the three-step upload, processed by the worker. */
async function uploadedImage(c: Creds): Promise<string> {
  const file = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#336699' } })
    .jpeg()
    .toBuffer();
  const created = (await api(c).POST('/media', { body: { name: 'photo.jpg', destinationType: 'POST_MEDIA' } })).data!;
  // The signed storage address is raw HTTP: it carries its own signature, not the API keys.
  expect(
    (await fetch(viaGateway(system, created.uploadUrl), { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: file })).status,
  ).toBe(201);
  const path = { mediaId: created.id };
  expect((await api(c).PATCH('/media/{mediaId}', { params: { path } })).response.status).toBe(200);
  for (let i = 0; i < 300; i++) {
    const media = (await api(c).GET('/media/{mediaId}', { params: { path } })).data!;
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
    const post = await api(c).POST('/posts', {
      body: {
        type: 'MEDIA',
        profileIds: [profile],
        publishAt: new Date(Date.now() + 24 * 3600 * 1000).toISOString(),
        captions: [{ plainText: 'Our new storefront' }],
        medias: [{ mediaFiles: [{ mediaLibId: mediaId }] }],
      },
    });
    expect(post.response.status).toBe(201);
    const stage = (op: 'schedule' | 'unschedule') =>
      api(c).PATCH('/posts/{postId}/stage/{op}', { params: { path: { postId: post.data!.id, op } } });
    const media = { params: { path: { mediaId } } };
    expect((await stage('schedule')).data!.stage).toBe('SCHEDULED');

    const refused = await api(c).DELETE('/media/{mediaId}', media);

    expect(refused.response.status).toBe(409);
    expect(refused.error).toEqual({
      error: {
        code: 'MEDIA_IN_USE',
        message: expect.stringMatching(/used by 1 scheduled post/),
        details: [],
        requestId: expect.any(String),
      },
    });
    expect((await api(c).GET('/media/{mediaId}', media)).data!.status).toBe('SUCCESS');

    expect((await stage('unschedule')).data!.stage).toBe('DRAFT');
    const deleted = await api(c).DELETE('/media/{mediaId}', media);

    expect(outcome(deleted)).toEqual({ status: 200, body: { success: true } });
    expect((await api(c).GET('/media/{mediaId}', media)).response.status).toBe(404);
  });
});
