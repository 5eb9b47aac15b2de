import { startHarness, type Harness } from './support/harness';

// Create, update, validate and schedule share one rule engine: the same content gets the same
// details from each of them.
let h: Harness;
const WS = 'ws-consistency';

beforeAll(async () => {
  h = await startHarness();
  h.profiles.add(WS, { id: 'mb', net: 'microblogNet' });
  h.profiles.add(WS, { id: 'gn', net: 'generalNet' });
  for (let i = 0; i < 6; i++) h.media.add(WS, { id: `img${i}` });
  h.media.add(WS, { id: 'vid', mime: 'video/mp4' });
});
afterAll(() => h?.stop());

const valid = { type: 'STATUS', profileIds: ['mb', 'gn'], captions: [{ plainText: 'fine' }], publishAt: '2031-01-01T00:00:00.000Z' };
const BAD: [string, Record<string, unknown>][] = [
  ['a caption over the microblogNet limit', { captions: [{ plainText: 'x'.repeat(281) }] }],
  ['five images on microblogNet', { type: 'MEDIA', medias: [{ mediaFiles: [0, 1, 2, 3, 4].map((i) => ({ mediaLibId: `img${i}` })) }] }],
  ['a poll of one option and an 8-day duration', { microblogNet: { poll: ['only'], pollDuration: 11520 } }],
  ['settings for a network without profile', { videoNet: { title: 'x' } }],
  ['a REEL with an image', { type: 'REEL', medias: [{ mediaFiles: [{ mediaLibId: 'img0' }] }] }],
  ['an unknown profile and label', { profileIds: ['mb', 'nobody'], labelIds: ['nolabel'] }],
];

describe('the same details from POST and PUT', () => {
  it.each(BAD)('%s', async (_what, change) => {
    const created = await h.call(WS, 'POST', '/posts', { ...valid, ...change });
    expect(created.status).toBe(400);
    const existing = (await h.call(WS, 'POST', '/posts', valid)).body;
    const updated = await h.call(WS, 'PUT', `/posts/${existing.id}`, change);
    expect(updated.status).toBe(400);
    expect(updated.body.error.details).toEqual(created.body.error.details);
  });
});

describe('the same details from validate, schedule and POST when the world changed after saving', () => {
  it('a media that is no longer usable', async () => {
    h.media.add(WS, { id: 'flip' });
    const body = { ...valid, type: 'MEDIA', medias: [{ mediaFiles: [{ mediaLibId: 'flip' }] }] };
    const saved = (await h.call(WS, 'POST', '/posts', body)).body;
    h.media.add(WS, { id: 'flip', status: 'ERROR' });
    const validate = await h.call(WS, 'GET', `/posts/${saved.id}/validate`);
    const schedule = await h.call(WS, 'PATCH', `/posts/${saved.id}/stage/schedule`);
    const create = await h.call(WS, 'POST', '/posts', body);
    expect(validate.body.error.details).toEqual([{ path: '/medias/0/mediaFiles/0/mediaLibId', message: expect.stringContaining('ERROR') }]);
    expect(schedule.body.error.details).toEqual(validate.body.error.details);
    expect(create.body.error.details).toEqual(validate.body.error.details);
  });

  it('a profile that left the workspace', async () => {
    h.profiles.add(WS, { id: 'leaving', net: 'generalNet' });
    const body = { ...valid, profileIds: ['leaving'] };
    const saved = (await h.call(WS, 'POST', '/posts', body)).body;
    h.profiles.byWorkspace.get(WS)!.delete('leaving');
    const validate = await h.call(WS, 'GET', `/posts/${saved.id}/validate`);
    expect(validate.body.error.details).toEqual([{ path: '/profileIds/0', message: expect.stringContaining('leaving') }]);
    expect((await h.call(WS, 'POST', '/posts', body)).body.error.details).toEqual(validate.body.error.details);
    // The post still shows the profile it was saved with.
    expect((await h.call(WS, 'GET', `/posts/${saved.id}`)).body.profiles).toEqual([
      {
        id: 'leaving',
        name: '',
        username: '',
        picture: '',
        net: { code: 'generalNet', name: 'General Net' },
        publishStatus: null,
        publishError: null,
      },
    ]);
  });
});
