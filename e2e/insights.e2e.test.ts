import { eventually, TestSystem } from '@social/testkit';

// Connect → backfill → read, through the real competitors, insights collector, sandbox network and gateway.
let system: TestSystem;
let gw: string;

beforeAll(async () => {
  system = await TestSystem.start();
  gw = `${system.gatewayUrl}/v2`;
});

afterAll(async () => {
  await system?.destroy();
});

interface Creds {
  workspaceId: string;
  apiId: string;
  apiKey: string;
  profiles: { id: string; net: { code: string } }[];
}

const call = async (c: Creds, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${gw}${path}`, {
    method,
    headers: { 'X-API-ID': c.apiId, 'X-API-KEY': c.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
};

const day = (offset: number) => new Date(Date.now() - offset * 86400000).toISOString().slice(0, 10);

describe('insights through the gateway', () => {
  it('collects a connected profile in the background and serves its daily and post insights, newest first', async () => {
    const c: Creds = await system.admin(['workspace', 'create', '--name', 'E2E insights', '--sandbox-profiles', '--json']);
    const gn = c.profiles.find((p) => p.net.code === 'generalNet')!;

    const daily = await eventually(
      async () => {
        const r = await call(c, 'GET', `/profile/${gn.id}/insights?since=${day(6)}&until=${day(1)}`);
        return r.status === 200 && r.body.total === 6 ? r : undefined;
      },
      60000,
      500,
    );
    const dates = daily.body.items.map((i: { date: string }) => i.date);
    expect(dates).toEqual([...dates].sort().reverse());
    expect(dates[0]).toBe(`${day(1)}T00:00:00.000Z`);
    expect(daily.body.items[0].insights[0]).toEqual({ metric: expect.stringMatching(/^gn-/), value: expect.any(Number), type: 'NUMBER' });

    const posts = await call(c, 'GET', `/profile/${gn.id}/insights/posts?since=${day(60)}&until=${day(0)}&take=5`);
    expect(posts.status).toBe(200);
    expect(posts.body).toMatchObject({ hasMore: expect.any(Boolean), total: expect.any(Number) });
    const published = posts.body.items.map((p: { publishedAt: string }) => p.publishedAt);
    expect(published).toEqual([...published].sort().reverse());
  });

  it('collects a competitor added through the API and limits it to public metrics', async () => {
    const c: Creds = await system.admin(['workspace', 'create', '--name', 'E2E competitor insights', '--sandbox-profiles', '--json']);
    const found = await call(c, 'GET', '/search/profiles?net=photoNet&query=harbor.lane.bakery');
    const added = await call(c, 'POST', '/competitor', { profileId: found.body.items[0].id });
    expect(added.status).toBe(201);

    const catalog = await call(c, 'GET', `/competitor/${added.body.id}/insights/metrics`);
    expect(catalog.status).toBe(200);
    expect(catalog.body.items.length).toBeGreaterThan(0);
    expect(catalog.body.items.every((m: { public: boolean }) => m.public)).toBe(true);

    const daily = await eventually(
      async () => {
        const r = await call(c, 'GET', `/competitor/${added.body.id}/insights?since=${day(3)}&until=${day(1)}`);
        return r.status === 200 && r.body.total === 3 ? r : undefined;
      },
      60000,
      500,
    );
    const metrics = new Set(daily.body.items.flatMap((i: { insights: { metric: string }[] }) => i.insights.map((m) => m.metric)));
    const publicCodes = new Set(catalog.body.items.filter((m: { public: boolean }) => m.public).map((m: { metric: string }) => m.metric));
    for (const m of metrics) expect(publicCodes.has(m)).toBe(true);
  });

  it('answers 404 for another workspace profile and 400 for an unsupported network', async () => {
    const a: Creds = await system.admin(['workspace', 'create', '--name', 'A', '--sandbox-profiles', '--json']);
    const b: Creds = await system.admin(['workspace', 'create', '--name', 'B', '--json']);
    expect((await call(b, 'GET', `/profile/${a.profiles[0]!.id}/insights`)).status).toBe(404);
    const mb = a.profiles.find((p) => p.net.code === 'microblogNet')!;
    const r = await call(a, 'GET', `/profile/${mb.id}/insights`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INSIGHTS_NOT_SUPPORTED');
  });
});
