import { statsOf } from './audience.rules';
import { parseDay } from './dates';
import { historyPostsOfDay } from './post-history';
import { seedAccounts } from './seed-accounts';

describe('post history', () => {
  const stats = statsOf('s', 'pn-biz-1', 'business');

  it('is the same on every call and has plausible cadence over a year', () => {
    const start = parseDay('2025-11-01')!;
    let count = 0;
    for (let d = start; d < start + 365; d++) {
      const posts = historyPostsOfDay('s', 'photoNet', 'pn-biz-1', stats, d);
      expect(historyPostsOfDay('s', 'photoNet', 'pn-biz-1', stats, d)).toEqual(posts);
      for (const p of posts) {
        expect(['FEED', 'REEL', 'TEMP']).toContain(p.type);
        expect(['IMAGE', 'VIDEO', 'CAROUSEL']).toContain(p.format);
        expect(new Date(p.publishedAtMs).toISOString().slice(0, 10)).toBe(new Date(d * 86_400_000).toISOString().slice(0, 10));
        expect(p.caption.length).toBeGreaterThan(10);
      }
      count += posts.length;
    }
    const perWeek = count / 52;
    expect(perWeek).toBeGreaterThan(stats.postsPerWeek * 0.7);
    expect(perWeek).toBeLessThan(stats.postsPerWeek * 1.3);
  });

  it('has only videos on videoNet and none on adNet', () => {
    const d = parseDay('2026-03-03')!;
    for (let i = 0; i < 60; i++) {
      for (const p of historyPostsOfDay('s', 'videoNet', 'vd-biz-1', statsOf('s', 'vd-biz-1', 'business'), d + i))
        expect(p.format).toBe('VIDEO');
    }
    expect(historyPostsOfDay('s', 'adNet', 'ad-own-1', statsOf('s', 'ad-own-1', 'own'), d)).toEqual([]);
  });
});

describe('seed accounts', () => {
  it('have unique ids and unique usernames per network, and own accounts on every network', () => {
    const all = seedAccounts();
    expect(new Set(all.map((a) => a.id)).size).toBe(all.length);
    expect(new Set(all.map((a) => `${a.net}/${a.username}`)).size).toBe(all.length);
    const nets = new Set(all.map((a) => a.net));
    expect(nets.size).toBe(10);
    for (const net of nets) expect(all.filter((a) => a.net === net && a.kind === 'own').length).toBeGreaterThanOrEqual(3);
    expect(all.filter((a) => a.net === 'photoNet' && a.kind === 'personal').length).toBeGreaterThan(0);
  });
});
