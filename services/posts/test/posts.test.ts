import { eventually } from '@social/testkit';
import { startHarness, paths, type Harness } from './support/harness';

let h: Harness;
const WS = 'ws-posts';

beforeAll(async () => {
  h = await startHarness();
  h.profiles.add(WS, { id: 'p-gen', net: 'generalNet', name: 'Acme Page' });
  h.profiles.add(WS, { id: 'p-vid', net: 'videoNet' });
  h.profiles.add(WS, { id: 'p-off', net: 'microblogNet', publishReady: false, name: 'Offline' });
  h.profiles.add('ws-other', { id: 'p-foreign', net: 'generalNet' });
  h.media.add(WS, { id: 'm-img', mime: 'image/jpeg' });
  h.media.add(WS, { id: 'm-vid', mime: 'video/mp4' });
  h.media.add(WS, { id: 'm-proc', status: 'PROCESSING' });
  h.media.add('ws-other', { id: 'm-foreign' });
});
afterAll(() => h?.stop());

describe('POST /posts', () => {
  it('creates an IDEA without publishAt and returns the full Post', async () => {
    const res = await h.call(WS, 'POST', '/posts', { type: 'STATUS', captions: [{ plainText: 'Hello', net: null }] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.any(String),
      type: 'STATUS',
      stage: 'IDEA',
      publishAt: null,
      budget: 0,
      profiles: [],
      captions: [{ plainText: 'Hello', net: null, firstComment: null }],
      medias: [],
      links: [],
      labels: [],
      briefing: null,
      stageHistory: [{ operation: 'create', from: null, to: 'IDEA', comment: null, at: expect.any(String) }],
    });
  });

  it('creates a DRAFT when publishAt is given', async () => {
    const publishAt = '2030-01-02T03:04:05.678Z';
    const res = await h.call(WS, 'POST', '/posts', { type: 'STATUS', publishAt, captions: [{ plainText: 'x' }] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ stage: 'DRAFT', publishAt });
  });

  it('returns profiles, medias with url and type, labels and the network objects of targeted networks only', async () => {
    const label = (await h.call(WS, 'POST', '/labels', { name: 'Launch' })).body;
    const res = await h.call(WS, 'POST', '/posts', {
      type: 'MEDIA',
      profileIds: ['p-gen', 'p-vid'],
      // videoNet has no first comments, so the first comment is generalNet's own.
      captions: [
        { plainText: 'Common', net: null },
        { plainText: 'Gen', net: 'generalNet', firstComment: { plainText: 'first!' } },
      ],
      medias: [
        { mediaFiles: [{ mediaLibId: 'm-img' }], net: 'generalNet' },
        { mediaFiles: [{ mediaLibId: 'm-vid' }], net: 'videoNet' },
      ],
      labelIds: [label.id],
      briefing: { markdown: '# Brief' },
      videoNet: { title: 'My video' },
    });
    expect(res.status).toBe(201);
    const post = res.body;
    expect(post.profiles).toEqual([
      {
        id: 'p-gen',
        name: 'Acme Page',
        username: 'user_p-gen',
        picture: 'http://pictures.test/p-gen.jpg',
        net: { code: 'generalNet', name: 'generalNet name' },
        publishStatus: null,
        publishError: null,
      },
      expect.objectContaining({ id: 'p-vid', net: { code: 'videoNet', name: 'videoNet name' }, publishStatus: null }),
    ]);
    expect(post.medias).toEqual([
      { id: 'm-img', url: 'http://storage.test/m-img?sig=abc', type: 'image/jpeg', net: { code: 'generalNet', name: 'General Net' } },
      { id: 'm-vid', url: 'http://storage.test/m-vid?sig=abc', type: 'video/mp4', net: { code: 'videoNet', name: 'Video Net' } },
    ]);
    expect(post.captions).toEqual([
      { plainText: 'Common', net: null, firstComment: null },
      { plainText: 'Gen', net: { code: 'generalNet', name: 'General Net' }, firstComment: { plainText: 'first!' } },
    ]);
    expect(post.labels).toEqual([label]);
    expect(post.briefing).toEqual({ markdown: '# Brief' });
    expect(post.videoNet).toEqual({ title: 'My video', madeForKids: false, containsSyntheticMedia: false, notifySubscribers: true });
    expect(post.generalNet).toEqual({ netLocation: null, carousels: null, carouselEndCard: false });
    for (const absent of ['photoNet', 'photoNetV2', 'professionalNet', 'shortVideoNet', 'conversationNet', 'listingNet', 'microblogNet']) {
      expect(post).not.toHaveProperty(absent);
    }
    const again = await h.call(WS, 'GET', `/posts/${post.id}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(post);
  });

  it('reports every problem of a request at once, each with its path', async () => {
    const res = await h.call(WS, 'POST', '/posts', {
      type: 'STATUS',
      profileIds: ['p-gen', 'p-foreign', 'p-gen'],
      captions: [{ plainText: 'x', net: 'photoNet' }],
      medias: [{ mediaFiles: [{ mediaLibId: 'm-foreign' }, { mediaLibId: 'm-proc' }] }],
      labelIds: ['nope'],
      listingNet: { postTopicType: 'EVENT' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(paths(res.body).sort()).toEqual(
      [
        '/profileIds/1',
        '/profileIds/2',
        '/labelIds/0',
        '/captions/0/net',
        // generalNet gets no caption at all (the only one is photoNet's): a STATUS needs text.
        '/captions',
        '/listingNet',
        '/listingNet/title',
        '/listingNet/startAt',
        '/listingNet/endAt',
        '/medias/0/mediaFiles/0/mediaLibId',
        '/medias/0/mediaFiles/1/mediaLibId',
        '/medias',
      ].sort(),
    );
    const list = await h.call('ws-empty-after-400', 'GET', '/posts');
    expect(list.body.total).toBe(0);
  });

  it('rejects a malformed body with JSON paths and creates nothing', async () => {
    const res = await h.call('ws-bad-shape', 'POST', '/posts', {
      type: 'TWEET',
      captions: [{ plainText: 5, net: 'myspace' }],
      publishAt: 'tomorrow',
      extra: true,
    });
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual(expect.arrayContaining(['/type', '/captions/0/plainText', '/captions/0/net', '/publishAt', '/extra']));
    expect((await h.call('ws-bad-shape', 'GET', '/posts')).body.total).toBe(0);
  });
});

describe('workspace isolation', () => {
  it('answers 404 for a post of another workspace on every endpoint', async () => {
    const id = (await h.call(WS, 'POST', '/posts', { type: 'STATUS', captions: [{ plainText: 'mine' }] })).body.id;
    const other = 'ws-intruder';
    const attempts = [
      await h.call(other, 'GET', `/posts/${id}`),
      await h.call(other, 'PUT', `/posts/${id}`, { captions: [] }),
      await h.call(other, 'GET', `/posts/${id}/validate`),
      await h.call(other, 'DELETE', `/posts/${id}`),
      await h.call(other, 'PATCH', `/posts/${id}/stage/archive`),
    ];
    for (const a of attempts) {
      expect(a.status).toBe(404);
      expect(a.body.error.code).toBe('NOT_FOUND');
    }
    expect((await h.call(other, 'GET', '/posts')).body).toEqual({ items: [], total: 0, skip: 0, take: 20 });
    expect((await h.call(WS, 'GET', `/posts/${id}`)).body.stage).toBe('IDEA');
  });

  it('does not accept profiles, media or labels of another workspace', async () => {
    const foreignLabel = (await h.call('ws-other', 'POST', '/labels', { name: 'theirs' })).body.id;
    const res = await h.call(WS, 'POST', '/posts', {
      type: 'MEDIA',
      profileIds: ['p-foreign'],
      medias: [{ mediaFiles: [{ mediaLibId: 'm-foreign' }] }],
      labelIds: [foreignLabel],
    });
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual(expect.arrayContaining(['/profileIds/0', '/medias/0/mediaFiles/0/mediaLibId', '/labelIds/0']));
  });
});

describe('GET /posts/{id}/validate', () => {
  it('answers {valid: true} for a post that can be published', async () => {
    const id = (await h.call(WS, 'POST', '/posts', { type: 'STATUS', profileIds: ['p-gen'], captions: [{ plainText: 'ok' }] })).body.id;
    expect(await h.call(WS, 'GET', `/posts/${id}/validate`)).toEqual({ status: 200, body: { valid: true } });
  });

  it('lists the profile that is not connected and a post without profiles, naming them', async () => {
    const off = (await h.call(WS, 'POST', '/posts', { type: 'STATUS', profileIds: ['p-gen', 'p-off'], captions: [{ plainText: 'ok' }] }))
      .body.id;
    const res = await h.call(WS, 'GET', `/posts/${off}/validate`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: '/profileIds/1', message: expect.stringContaining('"Offline" (microblogNet) is not connected') },
    ]);

    const none = (await h.call(WS, 'POST', '/posts', { type: 'STATUS', captions: [{ plainText: 'ok' }] })).body.id;
    expect(paths((await h.call(WS, 'GET', `/posts/${none}/validate`)).body)).toEqual(['/profileIds']);
  });

  it('changes nothing', async () => {
    const created = (await h.call(WS, 'POST', '/posts', { type: 'STATUS', profileIds: ['p-gen'], captions: [{ plainText: 'ok' }] })).body;
    await h.call(WS, 'GET', `/posts/${created.id}/validate`);
    expect((await h.call(WS, 'GET', `/posts/${created.id}`)).body).toEqual(created);
  });
});

describe('DELETE /posts/{id}', () => {
  it('deletes permanently and answers {success: true}', async () => {
    const id = (await h.call(WS, 'POST', '/posts', { type: 'STATUS', captions: [{ plainText: 'bye' }] })).body.id;
    expect(await h.call(WS, 'DELETE', `/posts/${id}`)).toEqual({ status: 200, body: { success: true } });
    expect((await h.call(WS, 'GET', `/posts/${id}`)).status).toBe(404);
    expect((await h.call(WS, 'DELETE', `/posts/${id}`)).status).toBe(404);
  });
});

describe('neighbour services', () => {
  it('answers 503 naming the neighbour when competitors is down, and works again when it is back', async () => {
    const port = Number(h.profiles.address.split(':')[1]);
    await h.profiles.stop();
    const res = await h.call(WS, 'POST', '/posts', { type: 'STATUS', profileIds: ['p-gen'], captions: [{ plainText: 'x' }] });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('competitors') });
    // A post that needs no profile data does not depend on it.
    expect((await h.call(WS, 'POST', '/posts', { type: 'STATUS', captions: [{ plainText: 'x' }] })).status).toBe(201);
    await h.profiles.start(port);
    // The channel reconnects with backoff; within seconds calls succeed again.
    const back = await eventually(
      async () => {
        const r = await h.call(WS, 'POST', '/posts', { type: 'STATUS', profileIds: ['p-gen'], captions: [{ plainText: 'x' }] });
        return r.status === 201 ? r : undefined;
      },
      15000,
      200,
    );
    expect(back.body.profiles[0].id).toBe('p-gen');
  });

  it('answers 503 when media does not answer within the deadline', async () => {
    h.media.delayMs = 3000;
    try {
      const res = await h.call(WS, 'POST', '/posts', { type: 'MEDIA', medias: [{ mediaFiles: [{ mediaLibId: 'm-img' }] }] });
      expect(res.status).toBe(503);
      expect(res.body.error.message).toContain('media service did not answer in time');
    } finally {
      h.media.delayMs = 0;
    }
  });
});
