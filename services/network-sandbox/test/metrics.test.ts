import { rejectionOf, type Sandbox, startSandbox } from './sandbox-harness';

describe('metrics', () => {
  let sbx: Sandbox;
  let twin: Sandbox;
  let otherSeed: Sandbox;
  let gnToken: string;

  beforeAll(async () => {
    [sbx, twin, otherSeed] = await Promise.all([
      startSandbox({ SANDBOX_SEED: 'metrics-seed' }),
      startSandbox({ SANDBOX_SEED: 'metrics-seed' }),
      startSandbox({ SANDBOX_SEED: 'another-seed' }),
    ]);
    gnToken = await sbx.token('generalNet', 'gn-own-1');
  });
  afterAll(() => Promise.all([sbx.stop(), twin.stop(), otherSeed.stop()]));

  const daily = (s: Sandbox, metrics: string[], since = '2026-02-01', until = '2026-04-30', accessToken?: string) =>
    s.adapter.dailyMetrics({ net: 'generalNet', accountId: 'gn-own-1', since, until, metrics, ...(accessToken ? { accessToken } : {}) });

  const own = ['gn-daily-page-fans', 'gn-daily-page-impressions', 'gn-daily-page-engaged-users', 'gn-daily-page-new-fans'];

  it('gives the same values for the same seed, account, metric and dates, and others for another seed', async () => {
    const a = await daily(sbx, own, '2026-02-01', '2026-04-30', gnToken);
    const b = await daily(twin, own, '2026-02-01', '2026-04-30', await twin.token('generalNet', 'gn-own-1'));
    const c = await daily(otherSeed, own, '2026-02-01', '2026-04-30', await otherSeed.token('generalNet', 'gn-own-1'));
    expect(a.days).toHaveLength(89);
    expect(b).toEqual(a);
    expect(c.days.map((d) => d.values['gn-daily-page-impressions'])).not.toEqual(a.days.map((d) => d.values['gn-daily-page-impressions']));
  });

  it('grows fans day by day with plausible, non-negative integer activity', async () => {
    const { days } = await daily(sbx, own, '2026-02-01', '2026-04-30', gnToken);
    expect(days[0]!.date).toBe('2026-02-01');
    expect(days[days.length - 1]!.date).toBe('2026-04-30');
    for (let i = 1; i < days.length; i++) {
      const fans = days[i]!.values['gn-daily-page-fans']!;
      expect(fans).toBeGreaterThanOrEqual(days[i - 1]!.values['gn-daily-page-fans']!);
      expect(days[i]!.values['gn-daily-page-new-fans']).toBe(fans - days[i - 1]!.values['gn-daily-page-fans']!);
    }
    expect(days[days.length - 1]!.values['gn-daily-page-fans']!).toBeGreaterThan(days[0]!.values['gn-daily-page-fans']!);
    for (const d of days) {
      for (const v of Object.values(d.values)) {
        expect(Number.isInteger(v)).toBe(true);
        expect(v).toBeGreaterThanOrEqual(0);
      }
      expect(d.values['gn-daily-page-engaged-users']!).toBeLessThan(d.values['gn-daily-page-fans']!);
    }
  });

  it('has no days after today', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const future = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const { days } = await daily(sbx, ['gn-daily-page-fans'], today, future, gnToken);
    expect(days.map((d) => d.date)).toEqual([today]);
  });

  it('serves neither formula nor UI-only metrics, and says why', async () => {
    const r = await daily(
      sbx,
      ['gn-daily-page-fans', 'gn-daily-page-engagement-rate', 'gn-daily-page-fans-by-country'],
      '2026-03-01',
      '2026-03-02',
      gnToken,
    );
    expect(Object.keys(r.days[0]!.values)).toEqual(['gn-daily-page-fans']);
    expect(r.unavailable).toEqual([
      { metric: 'gn-daily-page-engagement-rate', reason: 'FORMULA' },
      { metric: 'gn-daily-page-fans-by-country', reason: 'NOT_API_SUPPORTED' },
    ]);
  });

  it('limits reads without the account token (competitors) to public metrics', async () => {
    const pub = await sbx.adapter.dailyMetrics({
      net: 'generalNet',
      accountId: 'gn-biz-1',
      since: '2026-03-01',
      until: '2026-03-03',
      metrics: ['gn-daily-page-fans', 'gn-daily-page-impressions'],
    });
    expect(pub.days.every((d) => Object.keys(d.values).join() === 'gn-daily-page-fans')).toBe(true);
    expect(pub.unavailable).toEqual([{ metric: 'gn-daily-page-impressions', reason: 'NOT_PUBLIC' }]);
    // Another workspace account's token reads the page as public too.
    const viaOther = await sbx.adapter.dailyMetrics({
      net: 'generalNet',
      accountId: 'gn-biz-1',
      accessToken: gnToken,
      since: '2026-03-01',
      until: '2026-03-03',
      metrics: ['gn-daily-page-impressions'],
    });
    expect(viaOther.unavailable).toEqual([{ metric: 'gn-daily-page-impressions', reason: 'NOT_PUBLIC' }]);
    expect(
      await rejectionOf(
        sbx.adapter.dailyMetrics({
          net: 'generalNet',
          accountId: 'gn-per-1',
          since: '2026-03-01',
          until: '2026-03-03',
          metrics: ['gn-daily-page-fans'],
        }),
      ),
    ).toMatchObject({ kind: 'NOT_FOUND' });
  });

  it('stops serving a deprecated metric on its deprecation date', async () => {
    const pnToken = await sbx.token('photoNet', 'pn-own-1');
    const r = await sbx.adapter.dailyMetrics({
      net: 'photoNet',
      accountId: 'pn-own-1',
      accessToken: pnToken,
      since: '2025-04-18',
      until: '2025-04-23',
      metrics: ['pn-daily-impressions', 'pn-daily-reach'],
    });
    expect(r.days.map((d) => [d.date, Object.keys(d.values).sort().join()])).toEqual([
      ['2025-04-18', 'pn-daily-impressions,pn-daily-reach'],
      ['2025-04-19', 'pn-daily-impressions,pn-daily-reach'],
      ['2025-04-20', 'pn-daily-impressions,pn-daily-reach'],
      ['2025-04-21', 'pn-daily-reach'],
      ['2025-04-22', 'pn-daily-reach'],
      ['2025-04-23', 'pn-daily-reach'],
    ]);
  });

  it('refuses unknown metrics, bad ranges and networks without such insights', async () => {
    const unknown = await rejectionOf(daily(sbx, ['pn-daily-followers'], '2026-03-01', '2026-03-02', gnToken));
    expect(unknown).toMatchObject({
      kind: 'REJECTED',
      upstreamStatus: 400,
      details: [{ path: '/query/metrics', message: 'pn-daily-followers is not a daily metric of generalNet' }],
    });
    expect(await rejectionOf(daily(sbx, own, '2026-03-05', '2026-03-01', gnToken))).toMatchObject({
      kind: 'REJECTED',
      details: [{ path: '/query/since' }],
    });
    expect(await rejectionOf(daily(sbx, own, '2023-01-01', '2026-03-01', gnToken))).toMatchObject({
      kind: 'REJECTED',
      details: [{ path: '/query/until' }],
    });
    const mbToken = await sbx.token('microblogNet', 'mb-own-1');
    expect(
      await rejectionOf(
        sbx.adapter.dailyMetrics({
          net: 'microblogNet',
          accountId: 'mb-own-1',
          accessToken: mbToken,
          since: '2026-03-01',
          until: '2026-03-02',
          metrics: ['x'],
        }),
      ),
    ).toMatchObject({ kind: 'REJECTED', upstreamCode: 'NOT_SUPPORTED' });
    const lsToken = await sbx.token('listingNet', 'ls-own-1');
    expect(
      await rejectionOf(
        sbx.adapter.postMetrics({
          net: 'listingNet',
          accountId: 'ls-own-1',
          accessToken: lsToken,
          since: '2026-03-01',
          until: '2026-03-02',
          metrics: ['x'],
        }),
      ),
    ).toMatchObject({ kind: 'REJECTED', upstreamCode: 'NOT_SUPPORTED' });
    await expect(
      sbx.adapter.dailyMetrics({
        net: 'listingNet',
        accountId: 'ls-own-1',
        accessToken: lsToken,
        since: '2026-03-01',
        until: '2026-03-02',
        metrics: ['ls-daily-website-clicks'],
      }),
    ).resolves.toMatchObject({ days: [{ date: '2026-03-01' }, { date: '2026-03-02' }] });
  });

  describe('per post', () => {
    const postMetrics = ['gn-post-likes', 'gn-post-comments', 'gn-post-reach', 'gn-post-video-views'];
    const read = (s: Sandbox, token: string, cursor?: string) =>
      s.adapter.postMetrics({
        net: 'generalNet',
        accountId: 'gn-own-1',
        accessToken: token,
        since: '2026-01-01',
        until: '2026-03-31',
        metrics: postMetrics,
        limit: 40,
        ...(cursor ? { cursor } : {}),
      });

    it('lists the history of the range newest first, in pages, the same for the same seed', async () => {
      const pages = [];
      let cursor: string | undefined;
      do {
        const page = await read(sbx, gnToken, cursor);
        pages.push(page);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      const posts = pages.flatMap((p) => p.posts);
      // Own accounts post 3 to 10 times a week: a quarter holds dozens of posts.
      expect(posts.length).toBeGreaterThan(30);
      expect(new Set(posts.map((p) => p.id)).size).toBe(posts.length);
      for (let i = 1; i < posts.length; i++) expect(posts[i]!.publishedAt <= posts[i - 1]!.publishedAt).toBe(true);
      expect(posts.every((p) => p.publishedAt >= '2026-01-01' && p.publishedAt < '2026-04-01')).toBe(true);
      for (const p of posts) {
        expect(['FEED', 'TEMP', 'REEL', 'ADS']).toContain(p.type);
        expect(['IMAGE', 'VIDEO', 'TEXT', 'CAROUSEL']).toContain(p.format);
        expect(p.values['gn-post-likes']).toBeGreaterThan(0);
        if (p.format !== 'VIDEO') expect(p.values['gn-post-video-views']).toBe(0);
        expect(p.picture === null).toBe(p.format === 'TEXT');
      }
      const twinPage = await read(twin, await twin.token('generalNet', 'gn-own-1'));
      expect(twinPage.posts.map((p) => ({ ...p, url: '', picture: '' }))).toEqual(
        pages[0]!.posts.map((p) => ({ ...p, url: '', picture: '' })),
      );
    });

    it('gives posts published through the sandbox metrics that grow from zero since publishedAt', async () => {
      const published = await sbx.adapter.publish({
        net: 'generalNet',
        accountId: 'gn-own-1',
        accessToken: gnToken,
        idempotencyKey: 'metrics-post-1',
        post: {
          type: 'MEDIA',
          caption: 'Fresh post',
          firstComment: null,
          media: [{ mimeType: 'video/mp4', url: 'https://s/v.mp4' }],
          links: [],
          settings: null,
        },
      });
      const day = published.publishedAt.slice(0, 10);
      const at = async (hours: number) => {
        const asOf = new Date(Date.parse(published.publishedAt) + hours * 3_600_000).toISOString();
        const r = await sbx.http(
          'GET',
          `/sandbox/generalNet/accounts/gn-own-1/metrics/posts?since=${day}&until=${day}&metrics=${postMetrics.join(',')}&asOf=${asOf}`,
          undefined,
          { authorization: `Bearer ${gnToken}` },
        );
        expect(r.status).toBe(200);
        return r.body.posts.find((p: { id: string }) => p.id === published.networkPostId);
      };
      const [t0, t1, t48, t24x30] = [await at(0), await at(1), await at(48), await at(24 * 30)];
      expect(t0).toMatchObject({
        type: 'FEED',
        format: 'VIDEO',
        caption: 'Fresh post',
        values: { 'gn-post-likes': 0, 'gn-post-reach': 0 },
      });
      expect(t1.values['gn-post-reach']).toBeLessThanOrEqual(t48.values['gn-post-reach']);
      expect(t48.values['gn-post-reach']).toBeLessThan(t24x30.values['gn-post-reach']);
      expect(t24x30.values['gn-post-video-views']).toBeGreaterThan(0);
      expect(await at(-1)).toBeUndefined();
    });
  });
});
