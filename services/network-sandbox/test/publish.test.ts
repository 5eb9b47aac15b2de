import { createHash, randomBytes } from 'node:crypto';
import { closeMongo, connectMongo } from '@social/mongo';
import type { PublishInput } from '@social/networks';
import { readConfig } from '../src/config';
import { rejectionOf, type Sandbox, startSandbox } from './sandbox-harness';

describe('publishing', () => {
  let sbx: Sandbox;
  let token: string;
  let n = 0;
  // Ends with a dot so that no key is a prefix of another (the admin listing filters by prefix).
  const key = () => `test-key-${++n}.`;

  beforeAll(async () => {
    sbx = await startSandbox();
    token = await sbx.token('microblogNet', 'mb-own-1');
  });
  afterAll(() => sbx.stop());

  const input = (idempotencyKey: string, post: Partial<PublishInput['post']> = {}): PublishInput => ({
    net: 'microblogNet',
    accountId: 'mb-own-1',
    accessToken: token,
    idempotencyKey,
    post: { type: 'STATUS', caption: 'Hello from the sandbox', firstComment: null, media: [], links: [], settings: null, ...post },
  });
  const published = async (clientKey?: string) => {
    const r = await sbx.http(
      'GET',
      `/sandbox/admin/published?net=microblogNet&accountId=mb-own-1${clientKey ? `&clientKeyPrefix=${encodeURIComponent(clientKey)}` : ''}`,
    );
    expect(r.status).toBe(200);
    return r.body;
  };

  /** The sandbox's counter of stored posts on microblogNet (what benchmarks follow a burst by). */
  const storedCounter = async () => {
    const text = await (await fetch(`${sbx.url}/metrics`)).text();
    return Number(/^sandbox_posts_stored_total\{net="microblogNet"\} (\d+)/m.exec(text)?.[1] ?? 0);
  };

  // microblogNet keeps no idempotency keys, as most real networks: the key is sent and ignored.
  it('creates a post for every request on a network without keys, even with one Idempotency-Key', async () => {
    const k = key();
    const countBefore = (await sbx.http('GET', '/sandbox/admin/published/count')).body.total as number;
    const storedBefore = await storedCounter();
    const first = await sbx.adapter.publish(input(k));
    expect(first).toMatchObject({ networkPostId: expect.stringMatching(/^mb_/), replayed: false });
    expect(new Date(first.publishedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const second = await sbx.adapter.publish(input(k));
    expect(second).toMatchObject({ networkPostId: expect.stringMatching(/^mb_/), replayed: false });
    expect(second.networkPostId).not.toBe(first.networkPostId);
    expect((await sbx.http('GET', '/sandbox/admin/published/count')).body).toEqual({ total: countBefore + 2 });
    expect(await storedCounter()).toBe(storedBefore + 2);
    const list = await published(k);
    expect(list.items.map((i: any) => [i.networkPostId, i.clientKey, i.attempts])).toEqual([
      [first.networkPostId, k, 1],
      [second.networkPostId, k, 1],
    ]);
    expect(list.clientKeys).toEqual([{ net: 'microblogNet', accountId: 'mb-own-1', clientKey: k, created: 2 }]);
    expect(list.duplicateClientKeys).toEqual(list.clientKeys);
    expect(list.total).toBe(2);
  });

  it('creates one post per request from 20 concurrent publishes with one key', async () => {
    const k = key();
    const results = await Promise.all(Array.from({ length: 20 }, () => sbx.adapter.publish(input(k))));
    expect(new Set(results.map((r) => r.networkPostId)).size).toBe(20);
    expect((await published(k)).clientKeys).toEqual([{ net: 'microblogNet', accountId: 'mb-own-1', clientKey: k, created: 20 }]);
  });

  it('stores exactly what was published', async () => {
    const k = key();
    const media = [
      { mimeType: 'image/jpeg', url: 'https://storage.example/a.jpg', sizeBytes: 1000, width: 800, height: 600 },
      { mimeType: 'image/png', fetchBytes: async () => new TextEncoder().encode('png bytes') },
    ];
    const r = await sbx.adapter.publish(
      input(k, {
        type: 'MEDIA',
        caption: 'Two pictures 📷',
        firstComment: 'More in the thread',
        media,
        links: [],
        settings: { replySettings: 'FOLLOWING', poll: null, 'odd.key': { $nested: true } },
      }),
    );
    const [item] = (await published(k)).items;
    expect(item).toEqual({
      networkPostId: r.networkPostId,
      net: 'microblogNet',
      accountId: 'mb-own-1',
      clientKey: k,
      type: 'MEDIA',
      caption: 'Two pictures 📷',
      firstComment: 'More in the thread',
      media: [
        { mimeType: 'image/jpeg', url: 'https://storage.example/a.jpg', sizeBytes: 1000, width: 800, height: 600 },
        { mimeType: 'image/png', sha256: createHash('sha256').update('png bytes').digest('hex'), sizeBytes: 9 },
      ],
      links: [],
      settings: { replySettings: 'FOLLOWING', poll: null, 'odd.key': { $nested: true } },
      publishedAt: r.publishedAt,
      attempts: 1,
    });
  });

  it('refuses content outside the network rules with 422 and the reasons, creating nothing', async () => {
    const k = key();
    const err = await rejectionOf(sbx.adapter.publish(input(k, { caption: 'x'.repeat(281) })));
    expect(err).toMatchObject({ kind: 'REJECTED', retryable: false, upstreamStatus: 422, upstreamCode: 'CONTENT_REJECTED' });
    expect(err.details).toEqual([{ path: '/caption', message: 'must be at most 280 characters' }]);

    const mixed = await rejectionOf(
      sbx.adapter.publish(
        input(key(), {
          type: 'MEDIA',
          caption: 'mix',
          media: [
            { mimeType: 'image/jpeg', url: 'https://s/a' },
            { mimeType: 'video/mp4', url: 'https://s/b' },
          ],
        }),
      ),
    );
    expect(mixed.details).toContainEqual({ path: '/media', message: 'images and videos cannot be combined in one post' });
    expect((await published(k)).items).toEqual([]);
  });

  it('applies each network its own rules', async () => {
    const vdToken = await sbx.token('videoNet', 'vd-own-1');
    const video = { mimeType: 'video/mp4', url: 'https://s/v.mp4', durationSec: 600 };
    await expect(
      sbx.adapter.publish({
        net: 'videoNet',
        accountId: 'vd-own-1',
        accessToken: vdToken,
        idempotencyKey: key(),
        post: { type: 'MEDIA', caption: 'Watch', firstComment: null, media: [video], links: [], settings: { title: 'My video' } },
      }),
    ).resolves.toMatchObject({ networkPostId: expect.stringMatching(/^vd_/) });
    const longTitle = await rejectionOf(
      sbx.adapter.publish({
        net: 'videoNet',
        accountId: 'vd-own-1',
        accessToken: vdToken,
        idempotencyKey: key(),
        post: { type: 'MEDIA', caption: 'Watch', firstComment: null, media: [video], links: [], settings: { title: 't'.repeat(101) } },
      }),
    );
    expect(longTitle.details).toEqual([{ path: '/settings/title', message: 'must be at most 100 characters' }]);
  });

  it('refuses publishing to adNet', async () => {
    const adToken = await sbx.token('adNet', 'ad-own-1');
    expect(
      await rejectionOf(sbx.adapter.publish({ ...input(key()), net: 'adNet', accountId: 'ad-own-1', accessToken: adToken })),
    ).toMatchObject({ kind: 'REJECTED', upstreamCode: 'NOT_SUPPORTED' });
  });

  it('requires an Idempotency-Key and a token of the account', async () => {
    const noKey = await sbx.http(
      'POST',
      '/sandbox/microblogNet/accounts/mb-own-1/posts',
      { type: 'STATUS', caption: 'x' },
      { authorization: `Bearer ${token}` },
    );
    expect(noKey.status).toBe(400);
    expect(noKey.body.error.details[0].path).toBe('/headers/idempotency-key');
    const other = await sbx.token('microblogNet', 'mb-own-2');
    expect(await rejectionOf(sbx.adapter.publish({ ...input(key()), accessToken: other }))).toMatchObject({
      kind: 'AUTH_REVOKED',
      upstreamCode: 'TOKEN_INVALID',
    });
    expect(await rejectionOf(sbx.adapter.publish({ ...input(key()), accessToken: 'sbx_made_up' }))).toMatchObject({ kind: 'AUTH_REVOKED' });
    expect(await rejectionOf(sbx.adapter.publish({ ...input(key()), accountId: 'mb-own-99' }))).toMatchObject({ kind: 'NOT_FOUND' });
  });

  // Speed belongs to `pnpm bench publish`; this checks that a burst under latency loses nothing.
  it('answers every one of hundreds of concurrent publishes while each takes 100 ms', async () => {
    expect((await sbx.http('POST', '/sandbox/admin/latency', { publishMs: 100 })).body).toEqual({ publishMs: 100 });
    try {
      const results = await Promise.all(
        Array.from({ length: 300 }, (_, i) => sbx.adapter.publish(input(`bulk-${i}`, { caption: `bulk ${i}` }))),
      );
      expect(new Set(results.map((r) => r.networkPostId)).size).toBe(300);
    } finally {
      await sbx.http('POST', '/sandbox/admin/latency', { publishMs: 0 });
    }
  });
});

describe('a database of the earlier version (every key kept forever)', () => {
  it('loses the old unique key index at start and shows old posts with their key as clientKey', async () => {
    const prefix = `t_${randomBytes(5).toString('hex')}_`;
    const cfg = readConfig({ ...process.env, MONGO_DB_PREFIX: prefix });
    const conn = await connectMongo({ url: cfg.mongoUrl, dbName: cfg.dbName });
    const old = conn.collection('published_posts');
    await old.createIndex({ net: 1, accountId: 1, idempotencyKey: 1 }, { unique: true });
    await old.insertOne({
      _id: 'mb_legacy' as never,
      net: 'microblogNet',
      accountId: 'mb-own-1',
      idempotencyKey: 'old-key',
      fingerprint: 'f',
      type: 'STATUS',
      caption: 'old',
      firstComment: null,
      media: [],
      links: [],
      settingsJson: null,
      publishedAt: new Date(),
    });
    await closeMongo(conn);

    const sbx = await startSandbox({ MONGO_DB_PREFIX: prefix });
    try {
      const check = await connectMongo({ url: cfg.mongoUrl, dbName: cfg.dbName });
      const names = (await check.collection('published_posts').indexes()).map((i) => i.name);
      await closeMongo(check);
      expect(names).not.toContain('net_1_accountId_1_idempotencyKey_1');
      expect(names).toEqual(expect.arrayContaining(['heldKey_1']));

      const token = await sbx.token('microblogNet', 'mb-own-1');
      const post = { type: 'STATUS' as const, caption: 'new', firstComment: null, media: [], links: [], settings: null };
      for (const idempotencyKey of ['a', 'b'])
        await sbx.adapter.publish({ net: 'microblogNet', accountId: 'mb-own-1', accessToken: token, idempotencyKey, post });
      const admin = (await sbx.http('GET', '/sandbox/admin/published')).body;
      expect(admin.clientKeys.map((k: { clientKey: string }) => k.clientKey)).toEqual(['old-key', 'a', 'b']);
    } finally {
      await sbx.stop();
    }
  });
});
