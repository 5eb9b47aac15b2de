import { startHarness, paths, type Harness } from './support/harness';

let h: Harness;
const WS = 'ws-put';
const FUTURE = '2031-06-01T10:00:00.000Z';

beforeAll(async () => {
  h = await startHarness();
  h.profiles.add(WS, { id: 'p1', net: 'generalNet' });
  h.profiles.add(WS, { id: 'p2', net: 'conversationNet' });
  h.profiles.add(WS, { id: 'p-video', net: 'videoNet' });
  h.media.add(WS, { id: 'img', mime: 'image/png' });
  h.media.add(WS, { id: 'vid', mime: 'video/mp4' });
});
afterAll(() => h?.stop());

const create = async (body: Record<string, unknown>) => {
  const res = await h.call(WS, 'POST', '/posts', body);
  expect(res.status).toBe(201);
  return res.body;
};
const put = (id: string, body: unknown) => h.call(WS, 'PUT', `/posts/${id}`, body);

describe('PUT /posts/{id}', () => {
  it('changes only the given fields', async () => {
    const label = (await h.call(WS, 'POST', '/labels', { name: 'keep' })).body;
    const post = await create({
      type: 'STATUS',
      profileIds: ['p1'],
      captions: [{ plainText: 'one' }],
      labelIds: [label.id],
      briefing: { markdown: 'brief' },
      generalNet: { carouselEndCard: true },
    });
    const res = await put(post.id, { briefing: { markdown: 'new brief' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...post, briefing: { markdown: 'new brief' }, updatedAt: res.body.updatedAt });
  });

  it('replaces arrays whole instead of merging them', async () => {
    const post = await create({
      type: 'STATUS',
      profileIds: ['p1', 'p2'],
      captions: [{ plainText: 'common' }, { plainText: 'gen', net: 'generalNet' }],
    });
    const res = await put(post.id, { captions: [{ plainText: 'only conversation', net: 'conversationNet' }], profileIds: ['p2'] });
    expect(res.status).toBe(200);
    expect(res.body.captions).toEqual([
      { plainText: 'only conversation', net: { code: 'conversationNet', name: 'Conversation Net' }, firstComment: null },
    ]);
    expect(res.body.profiles.map((p: any) => p.id)).toEqual(['p2']);
  });

  it('an empty body changes nothing', async () => {
    const post = await create({ type: 'STATUS', captions: [{ plainText: 'x' }] });
    const res = await put(post.id, {});
    expect(res.body).toEqual({ ...post, updatedAt: res.body.updatedAt });
  });

  it('turns an IDEA into a DRAFT when it gets publishAt, and back without it', async () => {
    const post = await create({ type: 'STATUS', captions: [{ plainText: 'x' }] });
    const draft = await put(post.id, { publishAt: FUTURE });
    expect(draft.body).toMatchObject({ stage: 'DRAFT', publishAt: FUTURE });
    expect(draft.body.stageHistory.at(-1)).toMatchObject({ operation: 'update', from: 'IDEA', to: 'DRAFT' });
    const idea = await put(post.id, { publishAt: null });
    expect(idea.body).toMatchObject({ stage: 'IDEA', publishAt: null });
  });

  it('re-validates a type change: MEDIA → LINK needs links and no medias', async () => {
    const post = await create({ type: 'MEDIA', medias: [{ mediaFiles: [{ mediaLibId: 'img' }] }] });
    const typeOnly = await put(post.id, { type: 'LINK' });
    expect(typeOnly.status).toBe(400);
    expect(paths(typeOnly.body).sort()).toEqual(['/links', '/medias']);
    const withLink = await put(post.id, { type: 'LINK', links: [{ link: 'https://example.com/a' }] });
    expect(paths(withLink.body)).toEqual(['/medias']);
    const ok = await put(post.id, { type: 'LINK', links: [{ link: 'https://example.com/a', linkTitle: 'A' }], medias: [] });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      type: 'LINK',
      medias: [],
      links: [{ link: 'https://example.com/a', linkTitle: 'A', linkDescription: null, mediaLibId: null, net: null }],
    });
    expect((await h.call(WS, 'GET', `/posts/${post.id}`)).body.type).toBe('LINK');
  });

  it('removes a network object given as null', async () => {
    const post = await create({
      type: 'REEL',
      profileIds: ['p-video'],
      medias: [{ mediaFiles: [{ mediaLibId: 'vid' }] }],
      captions: [{ plainText: 'x' }],
      videoNet: { title: 'T', madeForKids: true },
    });
    expect(post.videoNet).toMatchObject({ title: 'T', madeForKids: true });
    const res = await put(post.id, { videoNet: null });
    expect(res.body.videoNet).toEqual({ madeForKids: false, containsSyntheticMedia: false, notifySubscribers: true });
  });

  it('re-validates and re-plans a SCHEDULED post, which follows the new time', async () => {
    const post = await create({ type: 'STATUS', profileIds: ['p1'], captions: [{ plainText: 'x' }], publishAt: FUTURE });
    await h.call(WS, 'PATCH', `/posts/${post.id}/stage/schedule`);
    const later = '2032-01-01T00:00:00.000Z';
    const res = await put(post.id, { publishAt: later, profileIds: ['p1', 'p2'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ stage: 'SCHEDULED', publishAt: later });
    expect(res.body.profiles.map((p: any) => [p.id, p.publishStatus])).toEqual([
      ['p1', 'PENDING'],
      ['p2', 'PENDING'],
    ]);
    h.profiles.add(WS, { id: 'p-broken', net: 'generalNet', publishReady: false });
    const broken = await put(post.id, { profileIds: ['p-broken'] });
    expect(broken.status).toBe(400);
    expect(paths(broken.body)).toEqual(['/profileIds/0']);
    const past = await put(post.id, { publishAt: '2020-01-01T00:00:00.000Z' });
    expect(paths(past.body)).toEqual(['/publishAt']);
    const noTime = await put(post.id, { publishAt: null });
    expect(paths(noTime.body)).toEqual(['/publishAt']);
    expect((await h.call(WS, 'GET', `/posts/${post.id}`)).body.publishAt).toBe(later);
  });

  it('refuses to change an archived post (restore first)', async () => {
    const post = await create({ type: 'STATUS', captions: [{ plainText: 'x' }] });
    await h.call(WS, 'PATCH', `/posts/${post.id}/stage/archive`);
    const res = await put(post.id, { captions: [] });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('PROTECTED_STAGE');
  });

  it('rejects unknown fields and wrong types with their paths', async () => {
    const post = await create({ type: 'STATUS', captions: [{ plainText: 'x' }] });
    const res = await put(post.id, { type: null, labelIds: 'a', nope: 1 });
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual(expect.arrayContaining(['/type', '/labelIds', '/nope']));
  });

  it('answers 404 for an unknown post', async () => {
    expect((await put('000000000000000000000000', {})).status).toBe(404);
  });
});
