import { TestSystem } from '@social/testkit';

// The whole system as processes, through the gateway, with workspaces and profiles made by the admin CLI.
let system: TestSystem;
let gw: string;

const PLANS = JSON.stringify({ free: { competitors: 5 }, tiny: { competitors: 1 } });

beforeAll(async () => {
  system = await TestSystem.start({ PLANS });
  gw = `${system.gatewayUrl}/v2`;
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

const call = async (c: Creds, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${gw}${path}`, {
    method,
    headers: { 'X-API-ID': c.apiId, 'X-API-KEY': c.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
};
const workspace = (plan = 'free'): Promise<Creds> =>
  system.admin(['workspace', 'create', '--name', 'E2E competitors', '--plan', plan, '--sandbox-profiles', '--json']);

describe('profiles and competitors through the gateway', () => {
  it('connects one sandbox profile per publishing network at workspace creation and lists them', async () => {
    const c = await workspace();

    expect(c.profiles).toHaveLength(9);
    expect(c.profiles.every((p) => p.statusLevel === 'OK')).toBe(true);
    const listed = await call(c, 'GET', '/profiles?net=generalNet,photoNet');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ hasMore: false, total: 2 });
    expect(listed.body.items.map((p: any) => p.id)).toEqual(c.profiles.slice(0, 2).map((p) => p.id));
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
    expect((await call(c, 'GET', '/profiles')).body.total).toBe(10);
  });

  it('searches, adds, lists, limits and removes competitors', async () => {
    const c = await workspace('tiny');
    const found = await call(c, 'GET', '/search/profiles?net=photoNet&query=harbor.lane.bakery');
    expect(found.status).toBe(200);
    const [profile] = found.body.items;
    expect(profile).toMatchObject({ name: 'Harbor Lane Bakery', username: 'harbor.lane.bakery' });

    const added = await call(c, 'POST', '/competitor', { profileId: profile.id });
    expect(added).toEqual({ status: 201, body: { id: expect.any(String), profileId: profile.id } });
    expect(await call(c, 'POST', '/competitor', { profileId: profile.id })).toEqual(added);

    const other = (await call(c, 'GET', '/search/profiles?net=generalNet&query=coffee')).body.items[0];
    const limited = await call(c, 'POST', '/competitor', { profileId: other.id });
    expect(limited.status).toBe(403);
    expect(limited.body.error.code).toBe('PLAN_LIMIT_REACHED');

    const list = await call(c, 'GET', '/competitors');
    expect(list.body).toMatchObject({
      hasMore: false,
      total: 1,
      items: [{ id: added.body.id, statusLevel: 'ACTIVE', net: { code: 'photoNet', name: 'Photo Net' } }],
    });

    const stranger = await workspace();
    expect((await call(stranger, 'DELETE', `/competitor/${added.body.id}`)).status).toBe(404);
    expect(await call(c, 'DELETE', `/competitor/${added.body.id}`)).toEqual({ status: 200, body: { success: true } });
    expect((await call(c, 'DELETE', `/competitor/${added.body.id}`)).status).toBe(404);
    expect((await call(c, 'POST', '/competitor', { profileId: other.id })).status).toBe(201);
  });

  it('answers search problems as the spec says', async () => {
    const c = await workspace();
    const personal = await call(c, 'GET', '/search/profiles?net=photoNet&query=ana.coffee');
    expect([personal.status, personal.body.error.code]).toEqual([400, 'SEARCH_PERSONAL_PROFILE']);
    const posts = await call(c, 'GET', '/search/profiles?net=photoNet&query=ana.coffee&area=posts');
    expect(posts).toEqual({ status: 200, body: { items: [], warning: expect.any(String) } });
    const noSearch = await call(c, 'GET', '/search/profiles?net=microblogNet&query=x');
    expect([noSearch.status, noSearch.body.error.code]).toEqual([400, 'SEARCH_NOT_SUPPORTED']);
  });
});
