import { DailyInsightsRepository } from '../src/data/daily-insights.repository';
import { PostInsightsRepository } from '../src/data/post-insights.repository';
import type { DayValues, StoredPost } from '../src/domain/ports';
import { messages, startHarness, type Harness } from './support/harness';

const WS = 'ws-insights-a';
const OTHER_WS = 'ws-insights-b';

/** Daily values of generalNet profile p-gn: 2026-01-25 .. 2026-02-05 (crossing a month). */
function gnDays(): DayValues[] {
  const out: DayValues[] = [];
  for (let i = 0; i < 12; i++) {
    const date = new Date(Date.UTC(2026, 0, 25 + i)).toISOString().slice(0, 10);
    out.push({ date, values: { 'gn-daily-page-fans': 1000 + i, 'gn-daily-page-impressions': 50 + i, 'gn-daily-page-consumptions': 7 } });
  }
  // Before its deprecation date (2024-03-14) the deprecated metric still has a value.
  out.push({ date: '2024-03-10', values: { 'gn-daily-page-impressions-organic': 33, 'gn-daily-page-fans': 900 } });
  return out;
}

const post = (id: string, publishedAt: string, likes: number, reach: number): StoredPost => ({
  id,
  type: 'FEED',
  format: 'IMAGE',
  caption: `caption ${id}`,
  url: `https://net.example/p/${id}`,
  picture: `https://net.example/pic/${id}.svg`,
  publishedAt,
  v: { 'gn-post-likes': likes, 'gn-post-reach': reach },
});

describe('insights API', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
    h.competitors.addProfile(WS, { id: 'p-gn', net: 'generalNet', accountId: 'gn-own-1' });
    h.competitors.addProfile(WS, { id: 'p-mb', net: 'microblogNet', accountId: 'mb-own-1' });
    h.competitors.addProfile(WS, { id: 'p-ls', net: 'listingNet', accountId: 'ls-own-1' });
    h.competitors.addProfile(WS, { id: 'p-ad', net: 'adNet', accountId: 'ad-own-1' });
    h.competitors.addCompetitor(WS, { id: 'c-pn', net: 'photoNet', accountId: 'pn-biz-1' });
    h.competitors.addProfile(OTHER_WS, { id: 'p-other', net: 'generalNet', accountId: 'gn-own-2' });

    const daily = new DailyInsightsRepository(h.db);
    const posts = new PostInsightsRepository(h.db);
    await daily.putDays(WS, 'profile:p-gn', gnDays());
    await daily.putDays(WS, 'profile:p-ls', [{ date: '2026-02-01', values: { 'ls-daily-website-clicks': 4 } }]);
    await daily.putDays(WS, 'competitor:c-pn', [
      { date: '2026-02-01', values: { 'pn-daily-followers': 5000 } },
      { date: '2026-02-02', values: { 'pn-daily-followers': 5010 } },
    ]);
    await posts.putPosts(WS, 'profile:p-gn', [
      post('gn-1', '2026-01-30T10:00:00.000Z', 10, 100),
      post('gn-2', '2026-01-31T23:59:59.000Z', 20, 200),
      post('gn-3', '2026-02-01T00:00:00.000Z', 30, 300),
      post('gn.4', '2026-02-03T08:00:00.000Z', 40, 400),
      post('gn-5', '2026-02-05T12:00:00.000Z', 50, 500),
    ]);
    await posts.putPosts(WS, 'competitor:c-pn', [
      { ...post('pn-1', '2026-02-01T09:00:00.000Z', 0, 0), v: { 'pn-post-likes': 12, 'pn-post-comments': 3 } },
    ]);
    h.posts.add(WS, { profileId: 'p-gn', networkPostId: 'gn-2', labelIds: ['l-summer'] });
    h.posts.add(WS, { profileId: 'p-gn', networkPostId: 'gn.4', labelIds: ['l-summer', 'l-promo'] });
    h.posts.add(WS, { profileId: 'p-gn', networkPostId: 'gn-5', labelIds: ['l-other'] });
  });
  afterAll(() => h.stop());

  const RANGE = 'since=2026-01-25&until=2026-02-05';

  describe('daily insights of an own profile', () => {
    it('returns days newest first as {date, insights: [{metric, value, type: NUMBER}]} in Form B', async () => {
      const r = await h.get(WS, `/profile/p-gn/insights?${RANGE}&metrics=gn-daily-page-fans,gn-daily-page-impressions`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ hasMore: false, total: 12 });
      expect(r.body.notes).toBeUndefined();
      expect(r.body.items).toHaveLength(12);
      expect(r.body.items[0]).toEqual({
        date: '2026-02-05T00:00:00.000Z',
        insights: [
          { metric: 'gn-daily-page-fans', value: 1011, type: 'NUMBER' },
          { metric: 'gn-daily-page-impressions', value: 61, type: 'NUMBER' },
        ],
      });
      const dates = r.body.items.map((i: { date: string }) => i.date);
      expect(dates[11]).toBe('2026-01-25T00:00:00.000Z');
      expect([...dates].sort().reverse()).toEqual(dates);
    });

    it('treats since and until as inclusive, across a month boundary and for a single day', async () => {
      const two = await h.get(WS, '/profile/p-gn/insights?since=2026-01-31&until=2026-02-01');
      expect(two.body.items.map((i: { date: string }) => i.date)).toEqual(['2026-02-01T00:00:00.000Z', '2026-01-31T00:00:00.000Z']);
      const one = await h.get(WS, '/profile/p-gn/insights?since=2026-02-05&until=2026-02-05');
      expect(one.body).toMatchObject({ total: 1, items: [{ date: '2026-02-05T00:00:00.000Z' }] });
      const after = await h.get(WS, '/profile/p-gn/insights?since=2026-02-06&until=2026-02-28');
      expect(after.body).toEqual({ hasMore: false, items: [], total: 0, notes: expect.any(Object) });
    });

    it('pages with skip and take over days', async () => {
      const first = await h.get(WS, `/profile/p-gn/insights?${RANGE}&take=5&metrics=gn-daily-page-fans`);
      expect(first.body).toMatchObject({ hasMore: true, total: 12 });
      expect(first.body.items).toHaveLength(5);
      const last = await h.get(WS, `/profile/p-gn/insights?${RANGE}&take=5&skip=10&metrics=gn-daily-page-fans`);
      expect(last.body).toMatchObject({ hasMore: false, total: 12 });
      expect(last.body.items.map((i: { date: string }) => i.date)).toEqual(['2026-01-26T00:00:00.000Z', '2026-01-25T00:00:00.000Z']);
    });

    it('defaults to the last 30 days and returns what exists (nothing collected there yet)', async () => {
      const r = await h.get(WS, '/profile/p-gn/insights?metrics=gn-daily-page-fans');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ hasMore: false, items: [], total: 0 });
    });

    it.each([
      ['since=2026-13-01', '/query/since'],
      ['since=2026-02-30', '/query/since'],
      ['until=yesterday', '/query/until'],
      ['since=2026-02-05&until=2026-02-01', '/query/since'],
      ['since=2024-01-01&until=2026-01-01', '/query/since'],
      ['take=0', '/query/take'],
      ['take=101', '/query/take'],
      ['skip=-1', '/query/skip'],
    ])('rejects %s with 400 naming %s', async (query, path) => {
      const r = await h.get(WS, `/profile/p-gn/insights?${query}`);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_FAILED');
      expect(r.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    });

    it('rejects unknown metric codes listing the valid ones', async () => {
      const r = await h.get(WS, '/profile/p-gn/insights?metrics=gn-daily-page-fans,gn-daily-nonsense');
      expect(r.status).toBe(400);
      expect(messages(r.body)).toHaveLength(1);
      expect(messages(r.body)[0]).toMatch(
        /unknown metric "gn-daily-nonsense".*valid metrics: .*gn-daily-page-fans.*gn-daily-page-impressions/,
      );
      expect(messages(r.body)[0]).not.toMatch(/engagement-rate/);
    });

    it("rejects formula metrics, metrics the API does not serve, post metrics and other networks' metrics", async () => {
      const r = await h.get(
        WS,
        '/profile/p-gn/insights?metrics=gn-daily-page-engagement-rate,gn-daily-page-fans-by-country,gn-post-likes,pn-daily-followers',
      );
      expect(r.status).toBe(400);
      const m = messages(r.body);
      expect(m[0]).toMatch(/formula .*not supported/);
      expect(m[1]).toMatch(/not API-supported/);
      expect(m[2]).toMatch(/post metric; request it from \/insights\/posts/);
      expect(m[3]).toMatch(/unknown metric "pn-daily-followers"/);
    });

    it('adds notes for a deprecated metric in the shape of spec 2.6', async () => {
      const r = await h.get(WS, '/profile/p-gn/insights?since=2024-03-01&until=2024-03-31&metrics=gn-daily-page-impressions-organic');
      expect(r.status).toBe(200);
      expect(r.body.items).toEqual([
        { date: '2024-03-10T00:00:00.000Z', insights: [{ metric: 'gn-daily-page-impressions-organic', value: 33, type: 'NUMBER' }] },
      ]);
      expect(r.body.notes).toEqual({
        metricsDeprecated: {
          message: expect.any(String),
          metrics: [
            {
              metric: 'gn-daily-page-impressions-organic',
              deprecatedAt: '2024-03-14T00:00:00.000Z',
              deprecationArticle: 'https://docs.social-api.dev/deprecations/gn-daily-page-impressions-organic',
            },
          ],
        },
      });
    });

    it('adds notes for soon-deprecated metrics, also when the default metric set includes them', async () => {
      const asked = await h.get(WS, `/profile/p-gn/insights?${RANGE}&metrics=gn-daily-page-consumptions,gn-daily-page-fans`);
      expect(asked.body.notes).toEqual({
        futureDeprecatedMetrics: {
          message: expect.any(String),
          metrics: [
            {
              metric: 'gn-daily-page-consumptions',
              deprecatedAt: '2027-09-30T00:00:00.000Z',
              deprecationArticle: expect.stringMatching(/^https:\/\//),
            },
          ],
        },
      });
      const byDefault = await h.get(WS, `/profile/p-gn/insights?${RANGE}`);
      expect(byDefault.body.notes.futureDeprecatedMetrics.metrics.map((m: { metric: string }) => m.metric)).toEqual([
        'gn-daily-page-consumptions',
      ]);
      // Already-deprecated metrics are not in the default set.
      expect(byDefault.body.notes.metricsDeprecated).toBeUndefined();
      expect(byDefault.body.items[0].insights.map((i: { metric: string }) => i.metric)).toEqual([
        'gn-daily-page-fans',
        'gn-daily-page-impressions',
        'gn-daily-page-consumptions',
      ]);
    });
  });

  describe('unsupported networks', () => {
    it('answers 400 for microblogNet daily and post insights', async () => {
      for (const path of ['/profile/p-mb/insights', '/profile/p-mb/insights/posts', '/profile/p-mb/insights/metrics']) {
        const r = await h.get(WS, path);
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe('INSIGHTS_NOT_SUPPORTED');
        expect(r.body.error.message).toMatch(/does not support/);
      }
    });

    it('serves listingNet daily insights but answers 400 for its post insights; adNet likewise', async () => {
      const daily = await h.get(WS, '/profile/p-ls/insights?since=2026-02-01&until=2026-02-01');
      expect(daily.status).toBe(200);
      expect(daily.body.items[0].insights).toEqual([{ metric: 'ls-daily-website-clicks', value: 4, type: 'NUMBER' }]);
      for (const path of ['/profile/p-ls/insights/posts', '/profile/p-ad/insights/posts']) {
        const r = await h.get(WS, path);
        expect(r.status).toBe(400);
        expect(r.body.error.message).toMatch(/does not support post insights/);
      }
    });
  });

  describe('post insights of an own profile', () => {
    it('returns posts newest publishedAt first with the spec 2.6 fields, inclusive range', async () => {
      const r = await h.get(WS, '/profile/p-gn/insights/posts?since=2026-01-31&until=2026-02-05&metrics=gn-post-likes');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ hasMore: false, total: 4 });
      expect(r.body.items.map((p: { id: string }) => p.id)).toEqual(['gn-5', 'gn.4', 'gn-3', 'gn-2']);
      expect(r.body.items[0]).toEqual({
        id: 'gn-5',
        picture: 'https://net.example/pic/gn-5.svg',
        type: 'FEED',
        format: 'IMAGE',
        url: 'https://net.example/p/gn-5',
        caption: 'caption gn-5',
        publishedAt: '2026-02-05T12:00:00.000Z',
        insights: [{ metric: 'gn-post-likes', value: 50, type: 'NUMBER' }],
      });
      expect(r.body.aggregate).toBeUndefined();
    });

    it('filters by labelIds (posts published through us) and aggregates over every filtered post, not the page', async () => {
      const r = await h.get(
        WS,
        `/profile/p-gn/insights/posts?${RANGE}&labelIds=l-summer,l-promo&aggregate=true&take=1&metrics=gn-post-likes,gn-post-reach`,
      );
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ hasMore: true, total: 2 });
      expect(r.body.items.map((p: { id: string }) => p.id)).toEqual(['gn.4']);
      expect(r.body.aggregate).toEqual([
        { metric: 'gn-post-likes', value: 60 },
        { metric: 'gn-post-reach', value: 600 },
      ]);
      const none = await h.get(WS, `/profile/p-gn/insights/posts?${RANGE}&labelIds=l-unknown&aggregate=true&metrics=gn-post-likes`);
      expect(none.body).toEqual({ hasMore: false, items: [], total: 0, aggregate: [{ metric: 'gn-post-likes', value: 0 }] });
    });

    it('rejects bad labelIds and aggregate values', async () => {
      const r = await h.get(WS, '/profile/p-gn/insights/posts?labelIds=,&aggregate=yes');
      expect(r.status).toBe(400);
      expect(r.body.error.details.map((d: { path: string }) => d.path)).toEqual(['/query/labelIds', '/query/aggregate']);
    });
  });

  describe('competitor insights', () => {
    it('serves only public metrics by default', async () => {
      const r = await h.get(WS, '/competitor/c-pn/insights?since=2026-02-01&until=2026-02-02');
      expect(r.status).toBe(200);
      expect(r.body.items).toEqual([
        { date: '2026-02-02T00:00:00.000Z', insights: [{ metric: 'pn-daily-followers', value: 5010, type: 'NUMBER' }] },
        { date: '2026-02-01T00:00:00.000Z', insights: [{ metric: 'pn-daily-followers', value: 5000, type: 'NUMBER' }] },
      ]);
    });

    it('rejects a non-public metric with 400', async () => {
      const r = await h.get(WS, '/competitor/c-pn/insights?metrics=pn-daily-reach');
      expect(r.status).toBe(400);
      expect(messages(r.body)[0]).toMatch(/not public; competitor insights are limited to public metrics: pn-daily-followers/);
      const posts = await h.get(WS, '/competitor/c-pn/insights/posts?metrics=pn-post-saved');
      expect(posts.status).toBe(400);
    });

    it('serves public post metrics and refuses the label filter', async () => {
      const r = await h.get(WS, '/competitor/c-pn/insights/posts?since=2026-02-01&until=2026-02-01');
      expect(r.status).toBe(200);
      expect(r.body.items).toEqual([
        expect.objectContaining({
          id: 'pn-1',
          insights: [
            { metric: 'pn-post-likes', value: 12, type: 'NUMBER' },
            { metric: 'pn-post-comments', value: 3, type: 'NUMBER' },
          ],
        }),
      ]);
      const labels = await h.get(WS, '/competitor/c-pn/insights/posts?labelIds=l-summer');
      expect(labels.status).toBe(400);
    });
  });

  describe('metric catalogs', () => {
    it("lists every metric of the profile's network with scope, support, formula, public and deprecation", async () => {
      const r = await h.get(WS, '/profile/p-gn/insights/metrics');
      expect(r.status).toBe(200);
      expect(r.body.hasMore).toBe(false);
      expect(r.body.total).toBe(r.body.items.length);
      const byCode = Object.fromEntries(r.body.items.map((m: { metric: string }) => [m.metric, m]));
      expect(byCode['gn-daily-page-fans']).toMatchObject({
        scope: 'daily',
        apiSupported: true,
        formula: false,
        public: true,
        available: true,
        deprecationState: 'ACTIVE',
        deprecatedAt: null,
      });
      expect(byCode['gn-post-engagement-rate']).toMatchObject({ scope: 'post', formula: true, apiSupported: false, available: false });
      expect(byCode['gn-daily-page-impressions-organic']).toMatchObject({
        deprecationState: 'DEPRECATED',
        deprecatedAt: '2024-03-14T00:00:00.000Z',
        available: true,
      });
      expect(byCode['gn-daily-page-consumptions']).toMatchObject({ deprecationState: 'FUTURE_DEPRECATED' });
      const daily = await h.get(WS, '/profile/p-gn/insights/metrics?scope=daily');
      expect(daily.body.items.every((m: { scope: string }) => m.scope === 'daily')).toBe(true);
    });

    it('limits the competitor catalog to public metrics', async () => {
      const r = await h.get(WS, '/competitor/c-pn/insights/metrics');
      expect(r.status).toBe(200);
      expect(r.body.items.map((m: { metric: string }) => m.metric)).toEqual(['pn-daily-followers', 'pn-post-likes', 'pn-post-comments']);
      expect(r.body.items.every((m: { public: boolean }) => m.public)).toBe(true);
    });
  });

  describe('workspaces', () => {
    it.each([
      '/profile/p-gn/insights',
      '/profile/p-gn/insights/posts',
      '/profile/p-gn/insights/metrics',
      '/competitor/c-pn/insights',
      '/competitor/c-pn/insights/posts',
      '/competitor/c-pn/insights/metrics',
      '/profile/no-such-profile/insights',
    ])('answers 404 for %s from another workspace', async (path) => {
      const r = await h.get(OTHER_WS, path);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('NOT_FOUND');
    });

    it('answers 503 when the competitors service is down', async () => {
      h.competitors.down = true;
      try {
        const r = await h.get(WS, '/profile/p-gn/insights');
        expect(r.status).toBe(503);
        expect(r.body.error.code).toBe('SERVICE_UNAVAILABLE');
      } finally {
        h.competitors.down = false;
      }
    });
  });
});
