import { dropDatabases, internalHeaders, testEnv } from '@social/testkit';
import { loadPostsConfig } from '../src/config';
import { PostsService } from '../src/posts-service';

const env = testEnv({ POSTS_PORT: '0' });
let service: PostsService;
let base: string;

beforeAll(async () => {
  service = await PostsService.create(loadPostsConfig(env));
  base = `http://127.0.0.1:${service.port}/v2`;
});

afterAll(async () => {
  await service.destroy();
  await dropDatabases(env['MONGO_URL']!, env['MONGO_DB_PREFIX']!);
});

const post = (ws: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/labels`, {
    method: 'POST',
    headers: { ...internalHeaders('posts', ws), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const list = (ws: string, query = '') => fetch(`${base}/labels/${query}`, { headers: internalHeaders('posts', ws) });

describe('labels', () => {
  it('creates a label with a random #RRGGBB color', async () => {
    const res = await post('ws-a', { name: 'Campaign' });
    expect(res.status).toBe(201);
    const label = await res.json();
    expect(label).toEqual({ id: expect.any(String), name: 'Campaign', color: expect.stringMatching(/^#[0-9A-F]{6}$/) });
  });

  it.each([
    ['1 character', 'a'],
    ['50 characters', 'x'.repeat(50)],
  ])('accepts a name of %s', async (_what, name) => {
    expect((await post('ws-limits', { name })).status).toBe(201);
  });

  it.each([
    ['an empty name', { name: '' }, '/name'],
    ['51 characters', { name: 'x'.repeat(51) }, '/name'],
    ['a missing name', {}, '/name'],
    ['a number', { name: 5 }, '/name'],
    ['an unknown field', { name: 'ok', extra: 1 }, '/extra'],
    ['an array body', [], ''],
  ])('rejects %s with 400 and details', async (_what, body, path) => {
    const res = await post('ws-invalid', body);
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('changes nothing when the body is rejected', async () => {
    await post('ws-invalid', { name: 'x'.repeat(51) });
    const page = await (await list('ws-invalid')).json();
    expect(page.total).toBe(0);
  });

  it('rejects malformed JSON with 400 and a non-JSON body with 415', async () => {
    expect((await post('ws-a', '{"name":')).status).toBe(400);
    const res = await post('ws-a', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect((await res.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('allows duplicate names', async () => {
    expect((await post('ws-dup', { name: 'Same' })).status).toBe(201);
    expect((await post('ws-dup', { name: 'Same' })).status).toBe(201);
    expect((await (await list('ws-dup')).json()).total).toBe(2);
  });

  it('pages in creation order with the Form A envelope', async () => {
    const names = Array.from({ length: 25 }, (_, i) => `L${String(i).padStart(2, '0')}`);
    for (const name of names) await post('ws-page', { name });
    const first = await (await list('ws-page')).json();
    expect(first).toMatchObject({ total: 25, skip: 0, take: 20 });
    expect(first.items.map((l: { name: string }) => l.name)).toEqual(names.slice(0, 20));
    const second = await (await list('ws-page', '?skip=20&take=10')).json();
    expect(second).toMatchObject({ total: 25, skip: 20, take: 10 });
    expect(second.items.map((l: { name: string }) => l.name)).toEqual(names.slice(20));
  });

  it.each(['?take=0', '?take=101', '?skip=-1', '?skip=abc', '?take=1.5'])('rejects pagination %s with 400', async (q) => {
    const res = await list('ws-page', q);
    expect(res.status).toBe(400);
    expect((await res.json()).error.details[0].path).toMatch(/^\/query\/(skip|take)$/);
  });

  it('never shows labels of another workspace', async () => {
    await post('ws-one', { name: 'mine' });
    const other = await (await list('ws-two')).json();
    expect(other).toEqual({ items: [], total: 0, skip: 0, take: 20 });
  });

  it('rejects requests without a valid internal token', async () => {
    const res = await fetch(`${base}/labels`);
    expect(res.status).toBe(401);
    const wrongAudience = await fetch(`${base}/labels`, { headers: internalHeaders('media', 'ws-a') });
    expect(wrongAudience.status).toBe(401);
  });

  it('serves health checks', async () => {
    const root = base.replace('/v2', '');
    expect((await fetch(`${root}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${root}/readyz`)).json()).toMatchObject({ status: 'ready', checks: { mongo: true } });
  });
});
