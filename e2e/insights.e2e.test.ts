import { eventually, TestSystem } from '@social/testkit';
import { apiClient } from './support/api';

// Connect → backfill → read, through the real competitors, insights collector, sandbox network and gateway.
let system: TestSystem;

beforeAll(async () => {
  system = await TestSystem.start();
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

const day = (offset: number) => new Date(Date.now() - offset * 86400000).toISOString().slice(0, 10);

describe('insights through the gateway', () => {
  it('collects a connected profile in the background and serves its daily and post insights, newest first', async () => {
    const c: Creds = await system.admin(['workspace', 'create', '--name', 'E2E insights', '--sandbox-profiles', '--json']);
    const api = apiClient(system, c);
    const gn = c.profiles.find((p) => p.net.code === 'generalNet')!;
    const profile = { profileId: gn.id };

    const daily = await eventually(
      async () => {
        const r = await api.GET('/profile/{profileId}/insights', { params: { path: profile, query: { since: day(6), until: day(1) } } });
        return r.response.status === 200 && r.data!.total === 6 ? r.data! : undefined;
      },
      60000,
      500,
    );
    const dates = daily.items.map((i) => i.date);
    expect(dates).toEqual([...dates].sort().reverse());
    expect(dates[0]).toBe(`${day(1)}T00:00:00.000Z`);
    expect(daily.items[0]!.insights[0]).toEqual({ metric: expect.stringMatching(/^gn-/), value: expect.any(Number), type: 'NUMBER' });

    const posts = await api.GET('/profile/{profileId}/insights/posts', {
      params: { path: profile, query: { since: day(60), until: day(0), take: 5 } },
    });
    expect(posts.response.status).toBe(200);
    expect(posts.data).toMatchObject({ hasMore: expect.any(Boolean), total: expect.any(Number) });
    const published = posts.data!.items.map((p) => p.publishedAt);
    expect(published).toEqual([...published].sort().reverse());
  });

  it('collects a competitor added through the API and limits it to public metrics', async () => {
    const c: Creds = await system.admin(['workspace', 'create', '--name', 'E2E competitor insights', '--sandbox-profiles', '--json']);
    const api = apiClient(system, c);
    const found = await api.GET('/search/profiles', { params: { query: { net: 'photoNet', query: 'harbor.lane.bakery' } } });
    const added = await api.POST('/competitor', { body: { profileId: found.data!.items[0]!.id } });
    expect(added.response.status).toBe(201);
    const competitor = { competitorId: added.data!.id };

    const catalog = await api.GET('/competitor/{competitorId}/insights/metrics', { params: { path: competitor } });
    expect(catalog.response.status).toBe(200);
    expect(catalog.data!.items.length).toBeGreaterThan(0);
    expect(catalog.data!.items.every((m) => m.public)).toBe(true);

    const daily = await eventually(
      async () => {
        const r = await api.GET('/competitor/{competitorId}/insights', {
          params: { path: competitor, query: { since: day(3), until: day(1) } },
        });
        return r.response.status === 200 && r.data!.total === 3 ? r.data! : undefined;
      },
      60000,
      500,
    );
    const metrics = new Set(daily.items.flatMap((i) => i.insights.map((m) => m.metric)));
    const publicCodes = new Set(catalog.data!.items.filter((m) => m.public).map((m) => m.metric));
    for (const m of metrics) expect(publicCodes.has(m)).toBe(true);
  });

  it('answers 404 for another workspace profile and 400 for an unsupported network', async () => {
    const a: Creds = await system.admin(['workspace', 'create', '--name', 'A', '--sandbox-profiles', '--json']);
    const b: Creds = await system.admin(['workspace', 'create', '--name', 'B', '--json']);
    const insightsOf = (c: Creds, profileId: string) =>
      apiClient(system, c).GET('/profile/{profileId}/insights', { params: { path: { profileId } } });
    expect((await insightsOf(b, a.profiles[0]!.id)).response.status).toBe(404);
    const mb = a.profiles.find((p) => p.net.code === 'microblogNet')!;
    const r = await insightsOf(a, mb.id);
    expect(r.response.status).toBe(400);
    expect(r.error!.error.code).toBe('INSIGHTS_NOT_SUPPORTED');
  });
});
