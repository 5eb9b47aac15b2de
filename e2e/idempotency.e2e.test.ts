import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { TestSystem } from '@social/testkit';
import { apiClient } from './support/api';

// A client that loses the connection after its request was sent, and retries with the same
// Idempotency-Key: every resource exists once, and the retry answers what the first call did.
let system: TestSystem;

beforeAll(async () => {
  system = await TestSystem.start({ PLANS: JSON.stringify({ free: { competitors: 5 } }) });
}, 300_000);
afterAll(async () => {
  await system?.destroy();
});

interface Creds {
  workspaceId: string;
  apiId: string;
  apiKey: string;
  profiles: { id: string; net: { code: string } }[];
}

/**
 * Sends the request and destroys the socket without reading the response: `when` is 'sent' (as
 * soon as the request is flushed; the gateway may or may not get to it) or 'answered' (when the
 * response headers arrive, so the work was certainly done).
 */
function sendAndDrop(c: Creds, method: string, path: string, body: unknown, key: string, when: 'sent' | 'answered') {
  const url = new URL(`${system.gatewayUrl}/v2${path}`);
  const payload = JSON.stringify(body);
  return new Promise<void>((resolve) => {
    const req = http.request(url, {
      method,
      agent: false,
      headers: {
        'X-API-ID': c.apiId,
        'X-API-KEY': c.apiKey,
        'Idempotency-Key': key,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
      },
    });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    if (when === 'answered') req.on('response', () => req.destroy());
    else req.on('finish', () => setTimeout(() => req.destroy(), 5));
    req.end(payload);
  });
}

describe('retries after a dropped connection', () => {
  it.each(['answered', 'sent'] as const)('create each resource once when the connection dropped once it was %s', async (when) => {
    const c: Creds = await system.admin([
      'workspace',
      'create',
      '--name',
      `idem-${when}`,
      '--plan',
      'free',
      '--sandbox-profiles',
      '--json',
    ]);
    const api = apiClient(system, c);
    const marker = `m-${randomUUID()}`;

    // Every POST and a stage change: dropped once, then retried by the client with the same key.
    const retried = async (method: string, path: string, body: unknown) => {
      const key = randomUUID();
      await sendAndDrop(c, method, path, body, key, when);
      const res = await api.request(
        method.toLowerCase() as 'post',
        path as '/labels',
        { body, params: { header: { 'Idempotency-Key': key } } } as never,
      );
      return { response: res.response, data: res.data as any };
    };

    const label = await retried('POST', '/labels', { name: marker.slice(0, 40) });
    expect(label.response.status).toBe(201);
    const post = await retried('POST', '/posts', {
      type: 'STATUS',
      captions: [{ plainText: marker, net: null }],
      publishAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(post.response.status).toBe(201);
    const postId = post.data.id;
    const staged = await retried('PATCH', `/posts/${postId}/stage/submitTeamReview`, { comment: marker });
    expect(staged.response.status).toBe(200);
    const media = await retried('POST', '/media', { name: `${marker}.jpg`, destinationType: 'POST_MEDIA' });
    expect(media.response.status).toBe(201);
    const found = await api.GET('/search/profiles', { params: { query: { net: 'photoNet', query: 'harbor.lane.bakery' } } });
    const competitor = await retried('POST', '/competitor', { profileId: found.data!.items[0]!.id });
    expect(competitor.response.status).toBe(201);

    // Counted where they live.
    const labels = await api.GET('/labels/', { params: { query: { take: 100 } } });
    expect(labels.data!.items.filter((l) => l.name === marker.slice(0, 40))).toHaveLength(1);
    const posts = await api.GET('/posts', { params: { query: { search: marker } } });
    expect(posts.data!.total).toBe(1);
    const got = await api.GET('/posts/{postId}', { params: { path: { postId } } });
    expect(got.data!.stage).toBe('TEAM_REVIEW');
    expect(got.data!.stageHistory.filter((h) => h.operation === 'submitTeamReview')).toHaveLength(1);
    const competitors = await api.GET('/competitors');
    expect(competitors.data!.total).toBe(1);
    const mediaId = media.data.id;
    expect((await api.GET('/media/{mediaId}', { params: { path: { mediaId } } })).response.status).toBe(200);
  });

  it('a client retry after a dropped response gets the first response back, marked as replayed', async () => {
    const c: Creds = await system.admin(['workspace', 'create', '--name', 'idem-replay', '--plan', 'free', '--json']);
    const api = apiClient(system, c);
    const key = randomUUID();
    await sendAndDrop(c, 'POST', '/labels', { name: 'replayed' }, key, 'answered');
    const again = await api.POST('/labels', { body: { name: 'replayed' }, params: { header: { 'Idempotency-Key': key } } });
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    const other = await api.POST('/labels', { body: { name: 'other' }, params: { header: { 'Idempotency-Key': key } } });
    expect(other.response.status).toBe(422);
    expect(other.error).toMatchObject({ error: { code: 'IDEMPOTENCY_KEY_REUSED' } });
    const labels = await api.GET('/labels/');
    expect(labels.data!.items.map((l) => l.name)).toEqual(['replayed']);
  });
});
