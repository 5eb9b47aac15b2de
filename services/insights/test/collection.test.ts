import amqp from 'amqplib';
import { collectionRequested, collectionTargetRemoved, type CollectionRequested } from '@social/contracts';
import { SandboxAdapter } from '@social/networks';
import { eventually } from '@social/testkit';
import { DailyInsightsRepository } from '../src/data/daily-insights.repository';
import { TargetRepository } from '../src/data/target.repository';
import { dayToIso, todayDay } from '../src/domain/dates';
import { startHarness, type Harness } from './support/harness';

const WS = 'ws-collect';
const today = todayDay();
const day = (offset: number) => dayToIso(today + offset);

describe('insights collection', () => {
  let h: Harness;
  let targets: TargetRepository;
  let gnToken: string;

  const publishJob = (target: CollectionRequested['target'], since: string, until: string, reason: 'backfill' | 'refresh' = 'backfill') =>
    h.broker!.publish(
      collectionRequested,
      { target, reason, since, until },
      { workspaceId: WS, exchange: h.env['INSIGHTS_JOBS_EXCHANGE']! },
    );
  /** Waits until the target's collection finished after `after`. */
  const collected = (kind: 'profile' | 'competitor', id: string, after: number) =>
    eventually(async () => {
      const t = await targets.get(kind, id);
      return t?.lastCollectedAt && t.lastCollectedAt.getTime() > after ? t : null;
    }, 30000);
  const token = async (net: string, accountId: string) => {
    const r = await h.sandboxHttp('POST', `/sandbox/${net}/accounts/${accountId}/tokens`);
    return r.body.accessToken as string;
  };
  const P1 = { kind: 'profile' as const, id: 'p1', net: 'generalNet', networkAccountId: 'gn-own-1' };
  const C1 = { kind: 'competitor' as const, id: 'c1', net: 'photoNet', networkAccountId: 'pn-biz-1' };

  beforeAll(async () => {
    // The refresh timer never fires during the run; periods are started with refreshNow().
    h = await startHarness({ collector: true, env: { INSIGHTS_REFRESH_INTERVAL_MINUTES: '600' } });
    targets = new TargetRepository(h.db);
    gnToken = await token('generalNet', 'gn-own-1');
    h.competitors.addProfile(WS, { id: 'p1', net: 'generalNet', accountId: 'gn-own-1', token: gnToken });
    h.competitors.addProfile(WS, { id: 'p2', net: 'generalNet', accountId: 'gn-own-2', token: await token('generalNet', 'gn-own-2') });
    h.competitors.addCompetitor(WS, { id: 'c1', net: 'photoNet', accountId: 'pn-biz-1' });
  });
  afterEach(async () => {
    await h.sandboxHttp('DELETE', '/sandbox/admin/failures');
  });
  afterAll(() => h.stop());

  it("backfills a connected profile: the days and posts become visible with the network's values", async () => {
    const start = Date.now();
    await publishJob(P1, day(-39), day(-1));
    await collected('profile', 'p1', start);

    const daily = await h.get(WS, `/profile/p1/insights?since=${day(-39)}&until=${day(-1)}&take=100`);
    expect(daily.status).toBe(200);
    expect(daily.body.total).toBe(39);
    expect(daily.body.items[0].date).toBe(`${day(-1)}T00:00:00.000Z`);
    const adapter = new SandboxAdapter({ baseUrl: h.env['NETWORK_SANDBOX_URL']!, timeoutMs: 5000 });
    const direct = await adapter.dailyMetrics({
      net: 'generalNet',
      accountId: 'gn-own-1',
      accessToken: gnToken,
      since: day(-1),
      until: day(-1),
      metrics: ['gn-daily-page-fans'],
    });
    await adapter.close();
    expect(daily.body.items[0].insights).toContainEqual({
      metric: 'gn-daily-page-fans',
      value: direct.days[0]!.values['gn-daily-page-fans'],
      type: 'NUMBER',
    });

    const posts = await h.get(WS, `/profile/p1/insights/posts?since=${day(-39)}&until=${day(-1)}`);
    expect(posts.body.total).toBeGreaterThan(0);
    expect(posts.body.items[0].insights.map((i: { metric: string }) => i.metric)).toContain('gn-post-likes');
  });

  it('collecting the same days again replaces them and never duplicates', async () => {
    const range = `since=${day(-39)}&until=${day(-1)}&take=100`;
    const before = await h.get(WS, `/profile/p1/insights?${range}`);
    const postsBefore = await h.get(WS, `/profile/p1/insights/posts?${range}`);
    const buckets = new DailyInsightsRepository(h.db);
    const bucketsBefore = (await buckets.bucketsOf('profile:p1')).map((b) => b._id).sort();
    expect(bucketsBefore.length).toBeGreaterThanOrEqual(2);

    const start = Date.now();
    await publishJob(P1, day(-39), day(-1));
    await collected('profile', 'p1', start);

    expect((await h.get(WS, `/profile/p1/insights?${range}`)).body).toEqual(before.body);
    const postsAfter = await h.get(WS, `/profile/p1/insights/posts?${range}`);
    expect(postsAfter.body.total).toBe(postsBefore.body.total);
    expect(postsAfter.body.items.map((p: { id: string }) => p.id)).toEqual(postsBefore.body.items.map((p: { id: string }) => p.id));
    expect((await buckets.bucketsOf('profile:p1')).map((b) => b._id).sort()).toEqual(bucketsBefore);
  });

  it('retries transient network failures (5xx, rate limits) with backoff and then stores the data', async () => {
    await h.sandboxHttp('POST', '/sandbox/admin/failures', {
      kind: 'server_error',
      status: 503,
      accountId: 'gn-own-1',
      operation: 'dailyMetrics',
      count: 2,
    });
    await h.sandboxHttp('POST', '/sandbox/admin/failures', {
      kind: 'rate_limit',
      retryAfterSeconds: 1,
      accountId: 'gn-own-1',
      operation: 'postMetrics',
      count: 1,
    });
    expect((await h.sandboxHttp('GET', '/sandbox/admin/failures')).body.items).toHaveLength(2);
    const start = Date.now();
    await publishJob(P1, day(-50), day(-45));
    await collected('profile', 'p1', start);

    // Both rules fired as often as they were told to, and retired: the job got through them.
    expect((await h.sandboxHttp('GET', '/sandbox/admin/failures')).body.items).toEqual([]);
    const daily = await h.get(WS, `/profile/p1/insights?since=${day(-50)}&until=${day(-45)}`);
    expect(daily.body.total).toBe(6);
  });

  it('collects a competitor with public metrics only', async () => {
    const start = Date.now();
    await publishJob(C1, day(-5), day(-1));
    await collected('competitor', 'c1', start);

    const stored = await new DailyInsightsRepository(h.db).bucketsOf('competitor:c1');
    expect(stored.map((b) => b.metrics)).toEqual(stored.map(() => ['pn-daily-followers']));
    const r = await h.get(WS, `/competitor/c1/insights?since=${day(-5)}&until=${day(-1)}`);
    expect(r.body.total).toBe(5);
    expect(r.body.items[0].insights).toEqual([{ metric: 'pn-daily-followers', value: expect.any(Number), type: 'NUMBER' }]);
  });

  it('refreshes every known target once per period, whichever replica claims it', async () => {
    const now = Date.now();
    const start = now - 1;
    expect(await h.collector!.refreshNow(now)).toBe(2);
    // A second replica (or a second tick) in the same period finds it claimed.
    expect(await h.collector!.refreshNow(now)).toBe(0);
    await collected('profile', 'p1', start);
    await collected('competitor', 'c1', start);
  });

  it('forgets a removed target with its data, and later refreshes leave it out', async () => {
    await h.broker!.publish(
      collectionTargetRemoved,
      { target: { kind: 'competitor', id: 'c1' } },
      { workspaceId: WS, exchange: h.env['INSIGHTS_JOBS_EXCHANGE']! },
    );
    await eventually(async () => (await targets.get('competitor', 'c1')) === null);
    const r = await h.get(WS, `/competitor/c1/insights?since=${day(-5)}&until=${day(-1)}`);
    expect(r.body).toEqual({ hasMore: false, items: [], total: 0 });
    expect(await h.collector!.refreshNow(Date.now() + 3_600_000 * 10)).toBe(1);
  });

  it('sends a job whose token the network refuses to the dead-letter queue, with the error recorded', async () => {
    await h.sandboxHttp('POST', '/sandbox/admin/failures', { kind: 'revoked_token', accountId: 'gn-own-2' });
    await publishJob({ kind: 'profile', id: 'p2', net: 'generalNet', networkAccountId: 'gn-own-2' }, day(-3), day(-1));
    const conn = await amqp.connect(h.env['AMQP_URL']!);
    try {
      const ch = await conn.createChannel();
      await eventually(async () => (await ch.checkQueue(`${h.env['INSIGHTS_JOBS_QUEUE']}.dlq`)).messageCount === 1, 20000);
      await ch.close();
    } finally {
      await conn.close();
    }
    expect((await targets.get('profile', 'p2'))?.lastError).toMatch(/token|revoked/i);
  });
});
