import { TestSystem } from '@social/testkit';
import { apiClient, outcome } from './support/api';

// The whole system as processes, through the gateway, with workspaces and profiles made by the admin CLI.
let system: TestSystem;

const PLANS = JSON.stringify({ free: { competitors: 5 }, tiny: { competitors: 1 } });

beforeAll(async () => {
  system = await TestSystem.start({ PLANS });
});

afterAll(async () => {
  await system?.destroy();
});

interface Creds {
  workspaceId: string;
  apiId: string;
  apiKey: string;
  profiles: { id: string; net: { code: string }; statusLevel: string }[];
}

const api = (c: Creds) => apiClient(system, c);
const workspace = (plan = 'free'): Promise<Creds> =>
  system.admin(['workspace', 'create', '--name', 'E2E competitors', '--plan', plan, '--sandbox-profiles', '--json']);

describe('profiles and competitors through the gateway', () => {
  it('connects one sandbox profile per publishing network at workspace creation and lists them', async () => {
    const c = await workspace();

    expect(c.profiles).toHaveLength(9);
    expect(c.profiles.every((p) => p.statusLevel === 'OK')).toBe(true);
    const listed = await api(c).GET('/profiles', { params: { query: { net: 'generalNet,photoNet' } } });
    expect(listed.response.status).toBe(200);
    expect(listed.data).toMatchObject({ hasMore: false, total: 2 });
    expect(listed.data!.items.map((p) => p.id)).toEqual(c.profiles.slice(0, 2).map((p) => p.id));
  });

  it('connects a chosen account with profile connect', async () => {
    const c = await workspace();
    const p = await system.admin([
      'profile',
      'connect',
      '--workspace',
      c.workspaceId,
      '--net',
      'photoNet',
      '--account',
      'pn-own-2',
      '--json',
    ]);

    expect(p).toMatchObject({ id: expect.any(String), username: 'brightside.media', net: { code: 'photoNet' }, statusLevel: 'OK' });
    expect((await api(c).GET('/profiles')).data!.total).toBe(10);
  });

  it('searches, adds, lists, limits and removes competitors', async () => {
    const c = await workspace('tiny');
    const found = await api(c).GET('/search/profiles', { params: { query: { net: 'photoNet', query: 'harbor.lane.bakery' } } });
    expect(found.response.status).toBe(200);
    const profile = found.data!.items[0]!;
    expect(profile).toMatchObject({ name: 'Harbor Lane Bakery', username: 'harbor.lane.bakery' });

    const add = (profileId: string) => api(c).POST('/competitor', { body: { profileId } });
    const added = outcome(await add(profile.id));
    expect(added).toEqual({ status: 201, body: { id: expect.any(String), profileId: profile.id } });
    expect(outcome(await add(profile.id))).toEqual(added);
    const competitorId = (added.body as { id: string }).id;

    const other = (await api(c).GET('/search/profiles', { params: { query: { net: 'generalNet', query: 'coffee' } } })).data!.items[0]!;
    const limited = await add(other.id);
    expect(limited.response.status).toBe(403);
    expect(limited.error!.error.code).toBe('PLAN_LIMIT_REACHED');

    const list = await api(c).GET('/competitors');
    expect(list.data).toMatchObject({
      hasMore: false,
      total: 1,
      items: [{ id: competitorId, statusLevel: 'ACTIVE', net: { code: 'photoNet', name: 'Photo Net' } }],
    });

    const remove = (who: Creds) => api(who).DELETE('/competitor/{competitorId}', { params: { path: { competitorId } } });
    const stranger = await workspace();
    expect((await remove(stranger)).response.status).toBe(404);
    expect(outcome(await remove(c))).toEqual({ status: 200, body: { success: true } });
    expect((await remove(c)).response.status).toBe(404);
    expect((await add(other.id)).response.status).toBe(201);
  });

  it('answers search problems as the spec says', async () => {
    const c = await workspace();
    const search = (query: { net: 'photoNet' | 'microblogNet'; query: string; area?: 'posts' }) =>
      api(c).GET('/search/profiles', { params: { query } });
    const personal = await search({ net: 'photoNet', query: 'ana.coffee' });
    expect([personal.response.status, personal.error?.error.code]).toEqual([400, 'SEARCH_PERSONAL_PROFILE']);
    const posts = await search({ net: 'photoNet', query: 'ana.coffee', area: 'posts' });
    expect(outcome(posts)).toEqual({ status: 200, body: { items: [], warning: expect.any(String) } });
    const noSearch = await search({ net: 'microblogNet', query: 'x' });
    expect([noSearch.response.status, noSearch.error?.error.code]).toEqual([400, 'SEARCH_NOT_SUPPORTED']);
  });
});
