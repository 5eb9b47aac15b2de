import { contentFingerprint, type PublishInput, type RecentPost } from '@social/networks';
import { rejectionOf, type Sandbox, startSandbox } from './sandbox-harness';

/** The account's recent posts, as real networks list them: how a publish is reconciled without keys. */
describe('recent posts listing', () => {
  let sbx: Sandbox;
  let token: string;
  let n = 0;

  beforeAll(async () => {
    sbx = await startSandbox();
    token = await sbx.token('generalNet', 'gn-own-1');
  });
  afterAll(() => sbx.stop());

  const input = (post: Partial<PublishInput['post']> = {}, accountId = 'gn-own-1', accessToken = token): PublishInput => ({
    net: 'generalNet',
    accountId,
    accessToken,
    idempotencyKey: `rp-${++n}`,
    post: { type: 'STATUS', caption: `Post ${n}`, firstComment: null, media: [], links: [], settings: null, ...post },
  });
  const list = (query: string, accountId = 'gn-own-1', accessToken = token) =>
    sbx.http('GET', `/sandbox/generalNet/accounts/${accountId}/posts?${query}`, undefined, { authorization: `Bearer ${accessToken}` });
  /** Every page of the adapter's listing. */
  const allPages = async (since: string, limit: number) => {
    const pages: RecentPost[][] = [];
    let cursor: string | undefined;
    do {
      const page = await sbx.adapter.recentPosts({
        net: 'generalNet',
        accountId: 'gn-own-1',
        accessToken: token,
        since,
        limit,
        ...(cursor ? { cursor } : {}),
      });
      pages.push(page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor && pages.length < 100);
    return pages;
  };
  const newestFirst = (items: { publishedAt: string; networkPostId: string }[]) =>
    [...items].sort((a, b) => Date.parse(b.publishedAt) - Date.parse(a.publishedAt) || (a.networkPostId < b.networkPostId ? 1 : -1));

  it('shows what a listing shows: content fields, no key, no settings, no media URLs', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const sent = input({
      type: 'LINK',
      caption: 'Read our story',
      firstComment: 'Thanks!',
      links: [
        {
          link: 'https://blog.example/story',
          title: 'Story',
          description: 'How we began',
          imageUrl: 'https://storage.example/s.png?sig=1',
        },
      ],
      settings: { audience: 'PUBLIC' },
    });
    const r = await sbx.adapter.publish(sent);
    const res = await list(`since=${since}`);
    expect(res.status).toBe(200);
    const item = res.body.items.find((i: { networkPostId: string }) => i.networkPostId === r.networkPostId);
    expect(item).toEqual({
      networkPostId: r.networkPostId,
      publishedAt: r.publishedAt,
      type: 'LINK',
      caption: 'Read our story',
      firstComment: 'Thanks!',
      media: [],
      links: [{ link: 'https://blog.example/story', title: 'Story', description: 'How we began' }],
    });
  });

  it('gives a listed post the contentFingerprint of the post that was sent (signed URLs and all)', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const sent = input({
      type: 'MEDIA',
      caption: 'Two photos',
      media: [
        {
          mimeType: 'image/jpeg',
          url: 'https://storage.example/a.jpg?X-Expires=1700000000&X-Signature=abc',
          sizeBytes: 5000,
          width: 10,
          height: 10,
        },
        { mimeType: 'image/png', fetchBytes: async () => new TextEncoder().encode('png') },
      ],
    });
    const r = await sbx.adapter.publish(sent);
    const mine = (await allPages(since, 100)).flat().find((p) => p.networkPostId === r.networkPostId);
    expect(mine).toEqual({ networkPostId: r.networkPostId, publishedAt: r.publishedAt, fingerprint: contentFingerprint(sent.post) });
    // A retry would sign its URLs anew: the fingerprint does not see it.
    const retried = {
      ...sent.post,
      media: [{ mimeType: 'image/jpeg', url: 'https://storage.example/a.jpg?X-Signature=zzz' }, { mimeType: 'image/png' }],
    };
    expect(contentFingerprint(retried)).toBe(mine!.fingerprint);
  });

  it('lists newest first, pages with a cursor without gaps or repeats, and only from `since` on', async () => {
    const before = await sbx.adapter.publish(input());
    // Each publish a second later on the sandbox's clock, so the order is known.
    await sbx.http('POST', '/sandbox/admin/clock', { offsetMs: 1000 });
    const since = new Date(Date.now() + 1000).toISOString();
    const ids: string[] = [];
    try {
      for (let i = 0; i < 7; i++) {
        await sbx.http('POST', '/sandbox/admin/clock', { offsetMs: 2000 + i * 1000 });
        ids.push((await sbx.adapter.publish(input())).networkPostId);
      }
      const pages = await allPages(since, 3);
      const all = pages.flat();
      expect(pages.every((p) => p.length <= 3)).toBe(true);
      expect(new Set(all.map((p) => p.networkPostId)).size).toBe(all.length);
      expect(all).toEqual(newestFirst(all));
      expect(all.every((p) => Date.parse(p.publishedAt) >= Date.parse(since))).toBe(true);
      // Our posts in order (the account's generated history may sit in between), the earlier one not at all.
      expect(all.map((p) => p.networkPostId).filter((id) => ids.includes(id))).toEqual([...ids].reverse());
      expect(all.some((p) => p.networkPostId === before.networkPostId)).toBe(false);
      expect(pages.length).toBeGreaterThanOrEqual(3);

      // `since` is inclusive.
      const sixth = all.find((p) => p.networkPostId === ids[5])!;
      const fromSixth = (await list(`since=${encodeURIComponent(sixth.publishedAt)}&limit=100`)).body.items.map(
        (i: { networkPostId: string }) => i.networkPostId,
      );
      expect(fromSixth.filter((id: string) => ids.includes(id))).toEqual([ids[6], ids[5]]);
    } finally {
      await sbx.http('POST', '/sandbox/admin/clock', { offsetMs: 0 });
    }
  });

  it('pages through posts hours and days apart, over short ranges and long ones alike', async () => {
    const other = await sbx.token('generalNet', 'gn-own-3');
    const HOUR = 3_600_000;
    const ids: string[] = [];
    try {
      for (const hoursAgo of [50, 3, 1, 0]) {
        await sbx.http('POST', '/sandbox/admin/clock', { offsetMs: -hoursAgo * HOUR });
        ids.push((await sbx.adapter.publish(input({}, 'gn-own-3', other))).networkPostId);
      }
    } finally {
      await sbx.http('POST', '/sandbox/admin/clock', { offsetMs: 0 });
    }
    const walk = async (sinceHoursAgo: number) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 200; pages++) {
        const page = await sbx.adapter.recentPosts({
          net: 'generalNet',
          accountId: 'gn-own-3',
          accessToken: other,
          since: new Date(Date.now() - sinceHoursAgo * HOUR).toISOString(),
          limit: 1,
          ...(cursor ? { cursor } : {}),
        });
        seen.push(...page.items.map((p) => p.networkPostId));
        if (!page.nextCursor) return seen;
        cursor = page.nextCursor;
      }
      throw new Error('the listing did not end');
    };
    expect((await walk(4)).filter((id) => ids.includes(id))).toEqual([ids[3], ids[2], ids[1]]);
    expect((await walk(51)).filter((id) => ids.includes(id))).toEqual([ids[3], ids[2], ids[1], ids[0]]);
  });

  it('includes the account generated history, like a real feed, newest first and without ads', async () => {
    const since = new Date(Date.now() - 14 * 86_400_000).toISOString();
    const res = await list(`since=${since}&limit=100`);
    expect(res.status).toBe(200);
    const history = res.body.items.filter((i: { networkPostId: string }) => i.networkPostId.startsWith('gn-own-1-'));
    expect(history.length).toBeGreaterThan(0);
    expect(res.body.items).toEqual(newestFirst(res.body.items));
    for (const h of history) {
      expect(['STATUS', 'MEDIA', 'STORY', 'REEL']).toContain(h.type);
      expect(Date.parse(h.publishedAt)).toBeLessThanOrEqual(Date.now());
    }
  });

  it('keeps accounts apart, and wants the token of the account', async () => {
    const other = await sbx.token('generalNet', 'gn-own-2');
    const since = new Date(Date.now() - 1000).toISOString();
    const r = await sbx.adapter.publish(input({}, 'gn-own-2', other));
    const mineOnOther = (await list(`since=${since}`, 'gn-own-2', other)).body.items.map((i: { networkPostId: string }) => i.networkPostId);
    expect(mineOnOther).toContain(r.networkPostId);
    expect((await list(`since=${since}&limit=100`)).body.items.map((i: { networkPostId: string }) => i.networkPostId)).not.toContain(
      r.networkPostId,
    );

    expect(
      await rejectionOf(sbx.adapter.recentPosts({ net: 'generalNet', accountId: 'gn-own-1', accessToken: other, since })),
    ).toMatchObject({ kind: 'AUTH_REVOKED', upstreamCode: 'TOKEN_INVALID' });
    expect((await sbx.http('GET', `/sandbox/generalNet/accounts/gn-own-1/posts?since=${since}`)).status).toBe(401);
  });

  it('answers bad queries with 400 and the reasons, and networks without posts with NOT_SUPPORTED', async () => {
    const noSince = await list('');
    expect(noSince.status).toBe(400);
    expect(noSince.body.error.details.map((d: { path: string }) => d.path)).toEqual(['/query/since']);
    const bad = await list('since=yesterday&limit=101&cursor=nonsense');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['/query/cursor', '/query/limit', '/query/since']);
    expect((await list(`since=${new Date().toISOString()}&limit=0`)).status).toBe(400);
    const adToken = await sbx.token('adNet', 'ad-own-1');
    const ad = await sbx.http('GET', `/sandbox/adNet/accounts/ad-own-1/posts?since=${new Date().toISOString()}`, undefined, {
      authorization: `Bearer ${adToken}`,
    });
    expect(ad.status).toBe(400);
    expect(ad.body.error.code).toBe('NOT_SUPPORTED');
  });

  it('can fail like any call (failure rules on recentPosts)', async () => {
    await sbx.http('POST', '/sandbox/admin/failures', { kind: 'server_error', operation: 'recentPosts', count: 1 });
    expect(
      await rejectionOf(
        sbx.adapter.recentPosts({ net: 'generalNet', accountId: 'gn-own-1', accessToken: token, since: new Date().toISOString() }),
      ),
    ).toMatchObject({ kind: 'TRANSIENT', operation: 'recentPosts', upstreamStatus: 500 });
    await expect(
      sbx.adapter.recentPosts({ net: 'generalNet', accountId: 'gn-own-1', accessToken: token, since: new Date().toISOString() }),
    ).resolves.toMatchObject({ items: expect.any(Array) });
  });
});
