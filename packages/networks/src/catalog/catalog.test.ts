import {
  deprecationStateOf,
  findNetwork,
  getMetric,
  getNetwork,
  isServedMetric,
  metricsOf,
  networkRef,
  PUBLISHING_NETWORK_CODES,
  publishingTraits,
} from './catalog';
import { METRICS } from './metrics.catalog';
import { isNetworkCode, NETWORK_CODES } from './network-codes';

// A fixed "now" so the deprecated / soon-deprecated split of the catalog is checked as written.
const CATALOG_DATE = new Date('2026-11-01T00:00:00Z');

describe('network catalog', () => {
  it('lists the nine networks of the spec plus the advertising network', () => {
    expect(NETWORK_CODES).toEqual([
      'generalNet',
      'photoNet',
      'photoNetV2',
      'professionalNet',
      'shortVideoNet',
      'conversationNet',
      'listingNet',
      'videoNet',
      'microblogNet',
      'adNet',
    ]);
    expect(isNetworkCode('photoNetV2')).toBe(true);
    expect(isNetworkCode('PhotoNet')).toBe(false);
    expect(isNetworkCode(undefined)).toBe(false);
    expect(findNetwork('nope')).toBeUndefined();
    expect(networkRef('videoNet')).toEqual({ code: 'videoNet', name: 'Video Net' });
  });

  it('gives every network a distinct metric prefix', () => {
    const prefixes = NETWORK_CODES.map((c) => getNetwork(c).metricPrefix);
    expect(new Set(prefixes).size).toBe(NETWORK_CODES.length);
  });

  it('has publishing rules for every network but adNet, with limits for text and media', () => {
    expect(PUBLISHING_NETWORK_CODES).toEqual(NETWORK_CODES.filter((c) => c !== 'adNet'));
    for (const code of PUBLISHING_NETWORK_CODES) {
      const rules = getNetwork(code).publishing!;
      expect(rules.postTypes.length).toBeGreaterThan(0);
      expect(rules.text.caption).toBeGreaterThan(0);
      expect(rules.media.maxItems).toBeGreaterThan(0);
      expect(rules.media.imageTypes.length + rules.media.videoTypes.length).toBeGreaterThan(0);
      if (rules.media.maxImages > 0) expect(rules.media.maxImageBytes).toBeGreaterThan(0);
      if (rules.media.maxVideos > 0) {
        expect(rules.media.maxVideoBytes).toBeGreaterThan(0);
        expect(rules.media.maxVideoDurationSec).toBeGreaterThan(0);
      }
      if (rules.firstComment) expect(rules.text.firstComment).toBeGreaterThan(0);
    }
    expect(getNetwork('adNet').publishing).toBeNull();
  });

  it('says per publishing network whether it keeps idempotency keys, and how long a publish may take', () => {
    const keyed = PUBLISHING_NETWORK_CODES.filter((c) => publishingTraits(c).idempotency.keys === 'window');
    expect(keyed).toEqual(['professionalNet', 'videoNet']);
    for (const code of keyed) expect(publishingTraits(code).idempotency).toEqual({ keys: 'window', windowMs: 24 * 3600_000 });
    for (const code of PUBLISHING_NETWORK_CODES) {
      expect(publishingTraits(code).maxProcessingMs).toBe(30_000);
      if (!keyed.includes(code)) expect(publishingTraits(code).idempotency).toEqual({ keys: 'none' });
    }
    expect(() => publishingTraits('adNet')).toThrow(/adNet/);
  });

  it('encodes the limits the posts service relies on', () => {
    const p = (c: Parameters<typeof getNetwork>[0]) => getNetwork(c).publishing!;
    expect(p('microblogNet').text.caption).toBe(280);
    expect(p('microblogNet').media).toMatchObject({ maxImages: 4, maxVideos: 1, mixImagesAndVideos: false });
    expect(p('conversationNet').text.caption).toBe(500);
    expect(p('photoNet').text.caption).toBe(2200);
    expect(p('photoNet').media.maxItems).toBe(10);
    expect(p('photoNetV2').media.maxItems).toBe(10);
    expect(p('professionalNet').text.caption).toBe(3000);
    expect(p('shortVideoNet').text.caption).toBe(2200);
    expect(p('shortVideoNet').media.maxImages).toBe(0);
    expect(p('listingNet').text.caption).toBe(1500);
    expect(p('listingNet').media).toMatchObject({ maxImages: 1, maxVideos: 0 });
    expect(p('listingNet').text.settingsFields).toMatchObject({ title: 58, ctaLink: 255, couponCode: 100, termConditions: 5000 });
    expect(p('generalNet').text.caption).toBe(63206);
    expect(p('generalNet').carouselCards?.min).toBe(2);
    expect(p('videoNet').text.caption).toBe(5000);
    expect(p('videoNet').text.settingsFields?.['title']).toBe(100);
    expect(p('videoNet').media).toMatchObject({ maxItems: 1, maxVideos: 1, maxImages: 0 });
    expect(p('generalNet').storyCaptions).toBe(false);
  });

  it('supports insights as the spec says: no microblogNet, listingNet and adNet daily only', () => {
    expect(getNetwork('microblogNet').insights).toEqual({ daily: false, posts: false });
    expect(getNetwork('listingNet').insights).toEqual({ daily: true, posts: false });
    expect(getNetwork('adNet').insights).toEqual({ daily: true, posts: false });
    for (const c of ['generalNet', 'photoNet', 'photoNetV2', 'professionalNet', 'shortVideoNet', 'conversationNet', 'videoNet'] as const) {
      expect(getNetwork(c).insights).toEqual({ daily: true, posts: true });
    }
  });

  it('searches by name on generalNet and by username on the photo networks only', () => {
    expect(getNetwork('generalNet').profileSearch).toBe('name');
    expect(getNetwork('photoNet').profileSearch).toBe('username');
    expect(getNetwork('photoNetV2').profileSearch).toBe('username');
    expect(NETWORK_CODES.filter((c) => getNetwork(c).profileSearch !== null)).toHaveLength(3);
  });
});

describe('metric catalog', () => {
  it('prefixes every metric code with its network prefix and keeps codes unique', () => {
    for (const m of METRICS) {
      expect(m.code).toBe(`${getNetwork(m.net).metricPrefix}-${m.name}`);
      expect(m.name.startsWith(m.scope === 'daily' ? 'daily-' : 'post-')).toBe(true);
    }
    expect(new Set(METRICS.map((m) => m.code)).size).toBe(METRICS.length);
  });

  it('has metrics exactly for the scopes each network supports', () => {
    for (const code of NETWORK_CODES) {
      const { insights } = getNetwork(code);
      const daily = metricsOf(code, 'daily');
      const post = metricsOf(code, 'post');
      expect(daily.length > 0).toBe(insights.daily);
      expect(post.length > 0).toBe(insights.posts);
      const all = metricsOf(code);
      if (all.length > 0) {
        expect(all.length).toBeGreaterThanOrEqual(8);
        expect(all.filter((m) => m.formula).length).toBeGreaterThanOrEqual(1);
        expect(all.filter((m) => !m.apiSupported && !m.formula).length).toBeGreaterThanOrEqual(1);
        expect(all.filter(isServedMetric).length).toBeGreaterThanOrEqual(5);
      }
    }
  });

  it('never marks a formula metric as API-supported', () => {
    expect(METRICS.filter((m) => m.formula && m.apiSupported)).toEqual([]);
  });

  it('uses the example names of the spec on generalNet', () => {
    for (const code of [
      'gn-daily-page-fans',
      'gn-daily-page-impressions',
      'gn-daily-page-engaged-users',
      'gn-post-likes',
      'gn-post-comments',
      'gn-post-shares',
      'gn-post-reach',
    ]) {
      expect(getMetric(code)).toMatchObject({ code, apiSupported: true, formula: false });
    }
  });

  it('has deprecated and soon-deprecated metrics with an article on several networks', () => {
    const withBoth = NETWORK_CODES.filter((c) => {
      const states = metricsOf(c).map((m) => deprecationStateOf(m, CATALOG_DATE));
      return states.includes('deprecated') && states.includes('futureDeprecated');
    });
    expect(withBoth.length).toBeGreaterThanOrEqual(2);
    for (const m of METRICS.filter((x) => x.deprecatedAt)) {
      expect(m.deprecatedAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(m.deprecationArticle).toBe(`https://docs.social-api.dev/deprecations/${m.code}`);
    }
  });

  it('tells deprecated from soon deprecated by the date', () => {
    const m = getMetric('pn-post-video-plays')!;
    expect(deprecationStateOf(m, new Date('2027-06-29T23:59:59Z'))).toBe('futureDeprecated');
    expect(deprecationStateOf(m, new Date('2027-06-30T00:00:00Z'))).toBe('deprecated');
    expect(deprecationStateOf(getMetric('pn-post-likes')!)).toBe('active');
  });

  it('offers public metrics on every network with competitor search', () => {
    for (const code of NETWORK_CODES.filter((c) => getNetwork(c).profileSearch)) {
      expect(metricsOf(code, 'daily').some((m) => m.public && isServedMetric(m))).toBe(true);
      expect(metricsOf(code, 'post').some((m) => m.public && isServedMetric(m))).toBe(true);
    }
  });
});
