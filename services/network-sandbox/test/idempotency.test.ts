import { type PublishInput, publishingTraits } from '@social/networks';
import { rejectionOf, type Sandbox, startSandbox } from './sandbox-harness';

const DAY_MS = 24 * 3600_000;

// professionalNet keeps idempotency keys for 24 h; microblogNet keeps none (see the catalog).
describe('idempotency keys kept for a window (professionalNet)', () => {
  let sbx: Sandbox;
  let token: string;
  let n = 0;
  const key = () => `win-${++n}.`;

  beforeAll(async () => {
    sbx = await startSandbox();
    token = await sbx.token('professionalNet', 'pro-own-1');
  });
  afterEach(async () => {
    await sbx.http('POST', '/sandbox/admin/clock', { offsetMs: 0 });
  });
  afterAll(() => sbx.stop());

  // A media post as a publisher sends it: the signed URL changes with every try.
  const input = (idempotencyKey: string, signature = 'sig-1', caption = 'Quarterly update'): PublishInput => ({
    net: 'professionalNet',
    accountId: 'pro-own-1',
    accessToken: token,
    idempotencyKey,
    post: {
      type: 'MEDIA',
      caption,
      firstComment: null,
      media: [{ mimeType: 'image/jpeg', url: `https://storage.example/chart.jpg?X-Signature=${signature}` }],
      links: [],
      settings: null,
    },
  });
  const lookup = (idempotencyKey: string) =>
    sbx.adapter.lookupPublished({ net: 'professionalNet', accountId: 'pro-own-1', accessToken: token, idempotencyKey });
  const createdUnder = async (clientKey: string) =>
    (await sbx.http('GET', `/sandbox/admin/published?net=professionalNet&clientKeyPrefix=${encodeURIComponent(clientKey)}`)).body;
  const shiftClock = async (offsetMs: number) => {
    const r = await sbx.http('POST', '/sandbox/admin/clock', { offsetMs });
    expect(r.status).toBe(200);
    expect(r.body.offsetMs).toBe(offsetMs);
  };

  it('is what the catalog says', () => {
    expect(publishingTraits('professionalNet').idempotency).toEqual({ keys: 'window', windowMs: DAY_MS });
  });

  it('answers a repeated key within the window with the same post (200), counting the request as a replay', async () => {
    const k = key();
    const first = await sbx.adapter.publish(input(k));
    expect(first).toMatchObject({ networkPostId: expect.stringMatching(/^pro_/), replayed: false });
    await shiftClock(DAY_MS - 60_000);
    expect(await sbx.adapter.publish(input(k))).toEqual({ ...first, replayed: true });
    const raw = await sbx.http('POST', '/sandbox/professionalNet/accounts/pro-own-1/posts', input(k).post, {
      authorization: `Bearer ${token}`,
      'idempotency-key': k,
    });
    expect(raw.status).toBe(200);
    expect(raw.body).toEqual({ networkPostId: first.networkPostId, publishedAt: first.publishedAt });
    await expect(lookup(k)).resolves.toEqual({ networkPostId: first.networkPostId, publishedAt: first.publishedAt });

    const admin = await createdUnder(k);
    expect(admin.clientKeys).toEqual([{ net: 'professionalNet', accountId: 'pro-own-1', clientKey: k, created: 1 }]);
    expect(admin.items).toEqual([expect.objectContaining({ networkPostId: first.networkPostId, clientKey: k, attempts: 3 })]);
  });

  it('refuses the key with other content (other signed URLs included) with 409: DUPLICATE, nothing created', async () => {
    const k = key();
    await sbx.adapter.publish(input(k, 'sig-1'));
    const err = await rejectionOf(sbx.adapter.publish(input(k, 'sig-2')));
    expect(err).toMatchObject({
      kind: 'DUPLICATE',
      retryable: false,
      status: 409,
      upstreamStatus: 409,
      upstreamCode: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect(await rejectionOf(sbx.adapter.publish(input(k, 'sig-1', 'Edited text')))).toMatchObject({ kind: 'DUPLICATE' });
    expect((await createdUnder(k)).clientKeys).toEqual([expect.objectContaining({ created: 1 })]);
  });

  it('forgets the key after the window: lookup finds nothing, the same key creates a new post', async () => {
    const k = key();
    const first = await sbx.adapter.publish(input(k));
    await shiftClock(DAY_MS + 1000);
    await expect(lookup(k)).resolves.toBeNull();
    const raw = await sbx.http('GET', `/sandbox/professionalNet/accounts/pro-own-1/posts/by-key/${k}`, undefined, {
      authorization: `Bearer ${token}`,
    });
    expect(raw.status).toBe(404);
    expect(raw.body.error.code).toBe('POST_NOT_FOUND');

    // Other content is fine now: the key is free again.
    const second = await sbx.adapter.publish(input(k, 'sig-9'));
    expect(second).toMatchObject({ replayed: false });
    expect(second.networkPostId).not.toBe(first.networkPostId);
    expect(Date.parse(second.publishedAt) - Date.parse(first.publishedAt)).toBeGreaterThanOrEqual(DAY_MS);
    await expect(lookup(k)).resolves.toEqual({ networkPostId: second.networkPostId, publishedAt: second.publishedAt });
    // ...and the new post holds it for its own window.
    expect(await sbx.adapter.publish(input(k, 'sig-9'))).toEqual({ ...second, replayed: true });
    expect((await createdUnder(k)).clientKeys).toEqual([{ net: 'professionalNet', accountId: 'pro-own-1', clientKey: k, created: 2 }]);
  });

  it('creates exactly one post from 20 concurrent publishes with one key, also when they race for an expired key', async () => {
    const k = key();
    const results = await Promise.all(Array.from({ length: 20 }, () => sbx.adapter.publish(input(k))));
    expect(new Set(results.map((r) => r.networkPostId)).size).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    expect((await createdUnder(k)).items[0].attempts).toBe(20);

    await shiftClock(DAY_MS + 1000);
    const later = await Promise.all(Array.from({ length: 20 }, () => sbx.adapter.publish(input(k))));
    expect(new Set(later.map((r) => r.networkPostId)).size).toBe(1);
    expect(later.filter((r) => !r.replayed)).toHaveLength(1);
    expect(later[0]!.networkPostId).not.toBe(results[0]!.networkPostId);
    const admin = await createdUnder(k);
    expect(admin.clientKeys).toEqual([expect.objectContaining({ clientKey: k, created: 2 })]);
    expect(admin.items.map((i: { attempts: number }) => i.attempts)).toEqual([20, 20]);
  });

  it('keeps keys per account', async () => {
    const k = key();
    const other = await sbx.token('professionalNet', 'pro-own-2');
    const a = await sbx.adapter.publish(input(k));
    const b = await sbx.adapter.publish({ ...input(k), accountId: 'pro-own-2', accessToken: other });
    expect(b).toMatchObject({ replayed: false });
    expect(b.networkPostId).not.toBe(a.networkPostId);
  });
});

describe('lookup by key on networks without keys', () => {
  let sbx: Sandbox;
  beforeAll(async () => {
    sbx = await startSandbox();
  });
  afterAll(() => sbx.stop());

  it('is refused with 400 NOT_SUPPORTED, and by the adapter before any call', async () => {
    const token = await sbx.token('microblogNet', 'mb-own-1');
    await sbx.adapter.publish({
      net: 'microblogNet',
      accountId: 'mb-own-1',
      accessToken: token,
      idempotencyKey: 'k-1',
      post: { type: 'STATUS', caption: 'hi', firstComment: null, media: [], links: [], settings: null },
    });
    const raw = await sbx.http('GET', '/sandbox/microblogNet/accounts/mb-own-1/posts/by-key/k-1', undefined, {
      authorization: `Bearer ${token}`,
    });
    expect(raw.status).toBe(400);
    expect(raw.body.error.code).toBe('NOT_SUPPORTED');
    expect(
      await rejectionOf(
        sbx.adapter.lookupPublished({ net: 'microblogNet', accountId: 'mb-own-1', accessToken: token, idempotencyKey: 'k-1' }),
      ),
    ).toMatchObject({
      kind: 'REJECTED',
      upstreamCode: 'NOT_SUPPORTED',
    });
    const adNet = await sbx.http('GET', '/sandbox/adNet/accounts/ad-own-1/posts/by-key/k-1');
    expect(adNet.status).toBe(400);
  });
});
