import { getMetric, isServedMetric, METRICS } from '@social/networks';
import { ANCHOR_DAY, audienceOn, statsOf } from './audience.rules';
import { parseDay } from './dates';
import { dailyModelOf, postModelOf } from './metric-models';
import { dailyValue, lifetimeShare, postValue } from './metric-values';

const seed = 'unit-seed';
const acct = (id: string, kind: 'own' | 'business' | 'creator' | 'personal' = 'own') => ({
  seed,
  accountId: id,
  stats: statsOf(seed, id, kind),
});
const day = (iso: string) => parseDay(iso)!;
const m = (code: string) => getMetric(code)!;

describe('metric models', () => {
  it('cover every metric the networks serve (API-supported, not formula)', () => {
    const missing = METRICS.filter(isServedMetric).filter((x) => (x.scope === 'daily' ? !dailyModelOf(x) : !postModelOf(x)));
    expect(missing.map((x) => x.code)).toEqual([]);
  });
});

describe('daily values', () => {
  it('are the same for the same seed, account, metric and date', () => {
    const a = acct('gn-own-1');
    const again = acct('gn-own-1');
    for (const code of ['gn-daily-page-fans', 'gn-daily-page-impressions', 'gn-daily-page-new-fans']) {
      expect(dailyValue(a, m(code), day('2026-05-04'))).toBe(dailyValue(again, m(code), day('2026-05-04')));
    }
  });

  it('differ between seeds and between accounts', () => {
    const d = day('2026-05-04');
    const code = m('gn-daily-page-impressions');
    expect(dailyValue(acct('gn-own-1'), code, d)).not.toBe(dailyValue(acct('gn-own-2'), code, d));
    const other = { seed: 'other-seed', accountId: 'gn-own-1', stats: statsOf('other-seed', 'gn-own-1', 'own') };
    expect(dailyValue(other, code, d)).not.toBe(dailyValue(acct('gn-own-1'), code, d));
  });

  it('grow fans day by day: never down, clearly up over a quarter', () => {
    const a = acct('pn-biz-2', 'business');
    const fans = m('pn-daily-followers');
    let prev = -1;
    for (let d = day('2026-01-01'); d <= day('2026-03-31'); d++) {
      const v = dailyValue(a, fans, d)!;
      expect(v).toBeGreaterThanOrEqual(prev);
      prev = v;
    }
    expect(dailyValue(a, fans, day('2026-03-31'))!).toBeGreaterThan(dailyValue(a, fans, day('2026-01-01'))!);
  });

  it('report new followers as the day-over-day change of followers', () => {
    const a = acct('gn-biz-3', 'business');
    const d = day('2026-06-10');
    const fans = m('gn-daily-page-fans');
    expect(dailyValue(a, m('gn-daily-page-new-fans'), d)).toBe(dailyValue(a, fans, d)! - dailyValue(a, fans, d - 1)!);
  });

  it('are non-negative integers for counts and plausible next to the audience', () => {
    const a = acct('gn-cre-1', 'creator');
    for (let d = day('2026-02-01'); d < day('2026-02-15'); d++) {
      const fans = dailyValue(a, m('gn-daily-page-fans'), d)!;
      const impressions = dailyValue(a, m('gn-daily-page-impressions'), d)!;
      const engaged = dailyValue(a, m('gn-daily-page-engaged-users'), d)!;
      for (const v of [fans, impressions, engaged]) {
        expect(Number.isInteger(v)).toBe(true);
        expect(v).toBeGreaterThanOrEqual(0);
      }
      expect(impressions).toBeLessThan(fans);
      expect(engaged).toBeLessThan(impressions);
    }
  });

  it('give money with cents on adNet', () => {
    const v = dailyValue(acct('ad-own-1'), m('ad-daily-spend'), day('2026-04-02'))!;
    expect(v).toBeGreaterThan(0);
    expect(Math.round(v * 100) / 100).toBe(v);
  });

  it('count gross subscriber gains as net change plus losses', () => {
    const a = acct('vd-biz-1', 'business');
    const d = day('2026-07-07');
    const subs = m('vd-daily-subscribers');
    const net = dailyValue(a, subs, d)! - dailyValue(a, subs, d - 1)!;
    expect(dailyValue(a, m('vd-daily-subscribers-gained'), d)).toBe(net + dailyValue(a, m('vd-daily-subscribers-lost'), d)!);
  });

  it('have no audience before the account existed', () => {
    const s = statsOf(seed, 'gn-own-1', 'own');
    expect(audienceOn(seed, 'gn-own-1', s, s.createdDay - 1)).toBe(0);
    expect(audienceOn(seed, 'gn-own-1', s, ANCHOR_DAY)).toBeGreaterThan(0);
  });
});

describe('post values', () => {
  const a = acct('gn-biz-1', 'business');
  const published = Date.parse('2026-03-01T10:00:00Z');
  const post = { id: 'p1', publishedAtMs: published, isVideo: false };
  const H = 3_600_000;

  it('start at zero and grow with the post age, then stay', () => {
    const likes = m('gn-post-likes');
    const at = (h: number) => postValue(a, post, likes, published + h * H)!;
    expect(at(0)).toBe(0);
    expect(at(1)).toBeLessThanOrEqual(at(24));
    expect(at(24)).toBeLessThan(at(24 * 7));
    expect(at(24 * 30)).toBe(at(24 * 60));
    expect(at(24 * 30)).toBeGreaterThan(0);
  });

  it('are zero for video metrics of a post without video', () => {
    expect(postValue(a, post, m('gn-post-video-views'), published + 48 * H)).toBe(0);
    expect(postValue(a, { ...post, isVideo: true }, m('gn-post-video-views'), published + 48 * H)).toBeGreaterThan(0);
  });

  it('reach the final share after three weeks', () => {
    expect(lifetimeShare(0)).toBe(0);
    expect(lifetimeShare(21 * 24 * H)).toBe(1);
    expect(lifetimeShare(12 * H)).toBeGreaterThan(0.4);
  });
});
