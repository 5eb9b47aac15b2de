import { startHarness, paths, type Harness } from './support/harness';

let h: Harness;
const WS = 'ws-list';
const ids: Record<string, string> = {};
let labelA: string;
let labelB: string;

const create = async (name: string, body: Record<string, unknown>) => {
  const res = await h.call(WS, 'POST', '/posts', body);
  expect(res.status).toBe(201);
  ids[name] = res.body.id;
  return res.body;
};
const list = async (query = '') => {
  const res = await h.call(WS, 'GET', `/posts${query}`);
  expect(res.status).toBe(200);
  return res.body;
};
const names = (page: { items: { id: string }[] }) => page.items.map((p) => Object.keys(ids).find((k) => ids[k] === p.id));

beforeAll(async () => {
  h = await startHarness();
  h.profiles.add(WS, { id: 'pg', net: 'generalNet' });
  h.profiles.add(WS, { id: 'pm', net: 'microblogNet' });
  h.media.add(WS, { id: 'img' });
  labelA = (await h.call(WS, 'POST', '/labels', { name: 'A' })).body.id;
  labelB = (await h.call(WS, 'POST', '/labels', { name: 'B' })).body.id;
  await create('jan', {
    type: 'STATUS',
    publishAt: '2030-01-15T12:00:00.000Z',
    profileIds: ['pg'],
    captions: [{ plainText: 'Winter SALE starts' }],
    labelIds: [labelA],
  });
  await create('feb', {
    type: 'MEDIA',
    publishAt: '2030-02-01T00:00:00.000Z',
    profileIds: ['pm'],
    medias: [{ mediaFiles: [{ mediaLibId: 'img' }] }],
    captions: [{ plainText: 'photo' }],
    labelIds: [labelB],
  });
  await create('feb-end', {
    type: 'STATUS',
    publishAt: '2030-02-28T23:59:59.999Z',
    captions: [{ plainText: 'end of month' }, { plainText: 'Sale for microblog', net: 'microblogNet' }],
    profileIds: ['pm'],
  });
  await create('mar', {
    type: 'LINK',
    publishAt: '2030-03-10T08:00:00.000Z',
    links: [{ link: 'https://example.com' }],
    captions: [{ plainText: 'read this' }],
    labelIds: [labelA, labelB],
  });
  await create('idea', { type: 'STATUS', captions: [{ plainText: 'an idea' }] });
  await create('archived', { type: 'STATUS', publishAt: '2030-01-20T00:00:00.000Z', captions: [{ plainText: 'old sale' }] });
  await h.call(WS, 'PATCH', `/posts/${ids['archived']}/stage/archive`);
  await h.call(WS, 'PATCH', `/posts/${ids['jan']}/stage/submitTeamReview`);
  await h.call('ws-list-other', 'POST', '/posts', {
    type: 'STATUS',
    captions: [{ plainText: 'sale elsewhere' }],
    publishAt: '2030-02-10T00:00:00.000Z',
  });
});
afterAll(() => h?.stop());

describe('GET /posts', () => {
  it('lists newest publishAt first, posts without one by creation time, archived left out, in Form A', async () => {
    const page = await list();
    expect(page).toMatchObject({ total: 5, skip: 0, take: 20 });
    // The IDEA was created now, which sorts after (newer than) nothing in 2030.
    expect(names(page)).toEqual(['mar', 'feb-end', 'feb', 'jan', 'idea']);
    expect(page.items[0]).toMatchObject({
      type: 'LINK',
      labels: [
        { id: labelA, name: 'A' },
        { id: labelB, name: 'B' },
      ],
    });
  });

  it('includes ARCHIVE only when stages asks for it', async () => {
    expect(names(await list('?stages=ARCHIVE'))).toEqual(['archived']);
    expect(names(await list('?stages=ARCHIVE,TEAM_REVIEW'))).toEqual(['archived', 'jan']);
    expect(names(await list('?stages=DRAFT'))).toEqual(['mar', 'feb-end', 'feb']);
  });

  it('filters by since and until (dates include the whole day)', async () => {
    expect(names(await list('?since=2030-02-01&until=2030-02-28'))).toEqual(['feb-end', 'feb']);
    expect(names(await list('?since=2030-02-01T00:00:00.001Z'))).toEqual(['mar', 'feb-end']);
    expect(names(await list('?until=2030-01-31'))).toEqual(['jan']);
  });

  it('filters by types, profileIds and labelIds (any of the given)', async () => {
    expect(names(await list('?types=MEDIA,LINK'))).toEqual(['mar', 'feb']);
    expect(names(await list('?profileIds=pm'))).toEqual(['feb-end', 'feb']);
    expect(names(await list('?profileIds=pg,pm'))).toEqual(['feb-end', 'feb', 'jan']);
    expect(names(await list(`?labelIds=${labelA}`))).toEqual(['mar', 'jan']);
    expect(names(await list(`?labelIds=${labelB}&types=MEDIA`))).toEqual(['feb']);
  });

  it('searches captions case-insensitively, in every caption of a post', async () => {
    expect(names(await list('?search=sale'))).toEqual(['feb-end', 'jan']);
    expect(names(await list('?search=SALE&stages=ARCHIVE'))).toEqual(['archived']);
    expect(names(await list('?search=a.c'))).toEqual([]);
  });

  it('pages with skip and take, and the order is stable across pages', async () => {
    const all = names(await list());
    const first = await list('?take=2');
    const second = await list('?skip=2&take=2');
    const third = await list('?skip=4&take=2');
    expect(first).toMatchObject({ total: 5, skip: 0, take: 2 });
    expect([...names(first), ...names(second), ...names(third)]).toEqual(all);
  });

  it('orders posts with the same publishAt by id, newest id first', async () => {
    const ws = 'ws-ties';
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      created.push(
        (await h.call(ws, 'POST', '/posts', { type: 'STATUS', publishAt: '2030-05-05T05:05:05.000Z', captions: [{ plainText: `t${i}` }] }))
          .body.id,
      );
    }
    const page = (await h.call(ws, 'GET', '/posts?take=3')).body;
    const rest = (await h.call(ws, 'GET', '/posts?skip=3')).body;
    expect([...page.items, ...rest.items].map((p: { id: string }) => p.id)).toEqual([...created].reverse());
  });

  it.each([
    ['?take=0', '/query/take'],
    ['?take=101', '/query/take'],
    ['?skip=-1', '/query/skip'],
    ['?since=yesterday', '/query/since'],
    ['?until=2030-13-45', '/query/until'],
    ['?stages=DRAFT,NOPE', '/query/stages'],
    ['?types=TWEET', '/query/types'],
    ['?since=2030-02-02&until=2030-02-01', '/query/until'],
  ])('rejects %s with 400 at %s', async (query, path) => {
    const res = await h.call(WS, 'GET', `/posts${query}`);
    expect(res.status).toBe(400);
    expect(paths(res.body)).toContain(path);
  });

  it('reports every bad parameter at once', async () => {
    const res = await h.call(WS, 'GET', '/posts?take=0&types=X&since=nope');
    expect(paths(res.body).sort()).toEqual(['/query/since', '/query/take', '/query/types']);
  });
});

describe('GET /posts with several replicas', () => {
  it('creates the first posts of a new workspace concurrently without an error, and lists them all', async () => {
    const workspaces = Array.from({ length: 10 }, (_, w) => `ws-first-writes-${w}`);
    const results = await Promise.all(
      workspaces.flatMap((ws) =>
        Array.from({ length: 8 }, (_, i) => h.call(ws, 'POST', '/posts', { type: 'STATUS', captions: [{ plainText: `first ${i}` }] })),
      ),
    );

    expect(results.filter((r) => r.status !== 201)).toEqual([]);
    for (const ws of workspaces) expect((await h.call(ws, 'GET', '/posts')).body.total).toBe(8);
  });

  it('lists what another replica wrote, updated, archived and deleted, at once', async () => {
    const { internalHeaders } = await import('@social/testkit');
    const { loadPostsConfig } = await import('../src/config');
    const { PostsService } = await import('../src/posts-service');
    const other = await PostsService.create(loadPostsConfig(h.env));
    const viaOther = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${other.port}/v2${path}`, {
        method,
        headers: internalHeaders('posts', 'ws-replicas'),
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return res.json();
    };
    const listHere = async () => (await h.call('ws-replicas', 'GET', '/posts')).body;
    try {
      const a = await viaOther('POST', '/posts', {
        type: 'STATUS',
        captions: [{ plainText: 'from the other replica' }],
        publishAt: '2030-01-01T00:00:00.000Z',
      });
      expect((await listHere()).items.map((p: { id: string }) => p.id)).toEqual([a.id]);
      const b = (
        await h.call('ws-replicas', 'POST', '/posts', {
          type: 'STATUS',
          captions: [{ plainText: 'here' }],
          publishAt: '2030-02-01T00:00:00.000Z',
        })
      ).body;
      expect((await viaOther('GET', '/posts')).items.map((p: { id: string }) => p.id)).toEqual([b.id, a.id]);
      await viaOther('PUT', `/posts/${a.id}`, { publishAt: '2030-03-01T00:00:00.000Z', captions: [{ plainText: 'moved' }] });
      expect((await listHere()).items.map((p: { captions: { plainText: string }[] }) => p.captions[0]!.plainText)).toEqual([
        'moved',
        'here',
      ]);
      await viaOther('PATCH', `/posts/${b.id}/stage/archive`);
      expect((await listHere()).total).toBe(1);
      await viaOther('DELETE', `/posts/${a.id}`);
      expect(await listHere()).toEqual({ items: [], total: 0, skip: 0, take: 20 });
    } finally {
      await other.destroy();
    }
  });
});
