import type { MediaItem, ProfileItem } from './ports';
import { NETWORK_KEYS } from './networks';
import { checkPost, type PostContent, type RuleMode } from './post.rules';

// Unit tests of the rules posts owns (type rules, references, per-network items, network-object
// rules). The catalog's per-network limits are tested at their boundaries in post-limits.test.ts.

const profile = (id: string, net: string, publishReady = true): [string, ProfileItem] => [
  id,
  {
    id,
    name: `Name ${id}`,
    username: id,
    picture: '',
    net: { code: net, name: net },
    publishReady,
    statusLevel: publishReady ? 'OK' : 'ERROR',
  },
];
const PROFILES = new Map<string, ProfileItem>([
  ...NETWORK_KEYS.map((n) => profile(`p-${n}`, n)),
  profile('p-down', 'generalNet', false),
  profile('p-ads', 'adNet'),
]);
const item = (id: string, mimeType: string, status = 'SUCCESS'): [string, MediaItem] => [
  id,
  {
    id,
    status,
    mimeType,
    kind: mimeType.startsWith('video/') ? 'VIDEO' : 'IMAGE',
    sizeBytes: 1000,
    durationSec: mimeType.startsWith('video/') ? 10 : null,
    url: `u/${id}`,
  },
];
const MEDIA = new Map<string, MediaItem>([
  item('img', 'image/jpeg'),
  item('img2', 'image/png'),
  item('vid', 'video/mp4'),
  item('vid2', 'video/mp4'),
  item('proc', '', 'PROCESSING'),
  item('err', '', 'ERROR'),
]);

const post = (over: Partial<PostContent>): PostContent => ({
  type: 'STATUS',
  profileIds: [],
  captions: [{ plainText: 'hello', firstComment: null, net: null }],
  medias: [],
  links: [],
  labelIds: [],
  networks: {},
  ...over,
});
const files = (...ids: string[]) => ({ mediaFiles: ids.map((mediaLibId) => ({ mediaLibId })), net: null });
const link = (over: Record<string, unknown> = {}) => ({
  link: 'https://example.com',
  linkTitle: null,
  linkDescription: null,
  mediaLibId: null,
  net: null,
  ...over,
});
const check = (over: Partial<PostContent>, mode: RuleMode = 'save') =>
  checkPost(post(over), { mode, profiles: PROFILES, media: MEDIA, labelIds: new Set(['l1']) })
    .map((d) => d.path)
    .sort();

describe('type rules', () => {
  it.each<[string, Partial<PostContent>, string[]]>([
    ['STATUS with text only', {}, []],
    ['STATUS with medias', { medias: [files('img')] }, ['/medias']],
    ['STATUS with links', { links: [link()] }, ['/links']],
    ['MEDIA with one image', { type: 'MEDIA', medias: [files('img')] }, []],
    ['MEDIA without medias', { type: 'MEDIA' }, ['/medias']],
    ['MEDIA with an empty group', { type: 'MEDIA', medias: [files()] }, ['/medias']],
    ['LINK with a link', { type: 'LINK', links: [link()] }, []],
    ['LINK without links', { type: 'LINK' }, ['/links']],
    ['LINK with medias', { type: 'LINK', links: [link()], medias: [files('img')] }, ['/medias']],
    ['STORY with an image', { type: 'STORY', medias: [files('img')] }, []],
    ['STORY without medias', { type: 'STORY' }, ['/medias']],
    ['REEL with exactly one video', { type: 'REEL', medias: [files('vid')] }, []],
    ['REEL without medias', { type: 'REEL' }, ['/medias']],
    ['REEL with two videos', { type: 'REEL', medias: [files('vid', 'vid2')] }, ['/medias/0/mediaFiles']],
    ['REEL with an image', { type: 'REEL', medias: [files('img')] }, ['/medias/0/mediaFiles/0/mediaLibId']],
  ])('%s → %j', (_name, over, expected) => {
    expect(check(over)).toEqual(expected);
  });
});

describe('references', () => {
  it.each<[string, Partial<PostContent>, string[]]>([
    ['a media of the workspace in SUCCESS', { type: 'MEDIA', medias: [files('img')] }, []],
    ['an unknown media', { type: 'MEDIA', medias: [files('img', 'nope')] }, ['/medias/0/mediaFiles/1/mediaLibId']],
    ['a PROCESSING media', { type: 'MEDIA', medias: [files('proc')] }, ['/medias/0/mediaFiles/0/mediaLibId']],
    ['an ERROR media', { type: 'MEDIA', medias: [files('err')] }, ['/medias/0/mediaFiles/0/mediaLibId']],
    ['an unknown link preview image', { type: 'LINK', links: [link({ mediaLibId: 'nope' })] }, ['/links/0/mediaLibId']],
    [
      'an unknown carousel card image',
      {
        profileIds: ['p-generalNet'],
        networks: {
          generalNet: {
            carousels: [
              { link: 'https://a.b', mediaLibId: 'nope' },
              { link: 'https://a.b', mediaLibId: 'img' },
            ],
          },
        },
      },
      ['/generalNet/carousels/0/mediaLibId'],
    ],
    ['a profile of the workspace', { profileIds: ['p-generalNet'] }, []],
    ['an unknown profile', { profileIds: ['p-generalNet', 'who'] }, ['/profileIds/1']],
    ['a profile listed twice', { profileIds: ['p-generalNet', 'p-generalNet'] }, ['/profileIds/1']],
    ['a profile of a network posts cannot publish to', { profileIds: ['p-ads'] }, ['/profileIds/0']],
    ['a disconnected profile, when saving', { profileIds: ['p-down'] }, []],
    ['an existing label', { labelIds: ['l1'] }, []],
    ['an unknown label', { labelIds: ['l1', 'l2'] }, ['/labelIds/1']],
  ])('%s → %j', (_name, over, expected) => {
    expect(check(over)).toEqual(expected);
  });

  it('needs at least one profile, each connected, to publish', () => {
    expect(check({}, 'publish')).toEqual(['/profileIds']);
    expect(check({ profileIds: ['p-generalNet', 'p-down'] }, 'publish')).toEqual(['/profileIds/1']);
    expect(check({ profileIds: ['p-generalNet'] }, 'publish')).toEqual([]);
  });

  it('names the profile and its network in the message', () => {
    const [d] = checkPost(post({ profileIds: ['p-down'] }), { mode: 'publish', profiles: PROFILES, media: MEDIA, labelIds: new Set() });
    expect(d).toEqual({
      path: '/profileIds/0',
      message: expect.stringContaining('"Name p-down" (generalNet) is not connected for publishing'),
    });
  });
});

describe('per-network captions, medias, links and settings', () => {
  const gen = { profileIds: ['p-generalNet'] };
  it.each<[string, Partial<PostContent>, string[]]>([
    ['a caption for a targeted network', { ...gen, captions: [{ plainText: 'x', firstComment: null, net: 'generalNet' }] }, []],
    [
      'a caption for a network not targeted',
      {
        ...gen,
        captions: [
          { plainText: 'x', firstComment: null, net: null },
          { plainText: 'x', firstComment: null, net: 'photoNet' },
        ],
      },
      ['/captions/1/net'],
    ],
    [
      'two common captions',
      {
        captions: [
          { plainText: 'a', firstComment: null, net: null },
          { plainText: 'b', firstComment: null, net: null },
        ],
      },
      ['/captions/1/net'],
    ],
    [
      'two captions for one network',
      {
        ...gen,
        captions: [
          { plainText: 'a', firstComment: null, net: 'generalNet' },
          { plainText: 'b', firstComment: null, net: 'generalNet' },
        ],
      },
      ['/captions/1/net'],
    ],
    [
      'a media group for a network not targeted',
      { type: 'MEDIA', medias: [{ mediaFiles: [{ mediaLibId: 'img' }], net: 'videoNet' }] },
      ['/medias/0/net'],
    ],
    ['a link for a network not targeted', { type: 'LINK', links: [link({ net: 'microblogNet' })] }, ['/links/0/net']],
    ['settings of a network not targeted', { ...gen, networks: { videoNet: { title: 't' } } }, ['/videoNet']],
    [
      'settings of a targeted network',
      { type: 'REEL', medias: [files('vid')], profileIds: ['p-videoNet'], networks: { videoNet: { title: 't' } } },
      [],
    ],
  ])('%s → %j', (_name, over, expected) => {
    expect(check(over)).toEqual(expected);
  });
});

describe('network object rules', () => {
  const listing = (o: Record<string, unknown>) => ({ profileIds: ['p-listingNet'], networks: { listingNet: o } });
  const event = { postTopicType: 'EVENT', title: 'Launch', startAt: '2030-01-01T10:00:00.000Z', endAt: '2030-01-01T12:00:00.000Z' };
  it.each<[string, Partial<PostContent>, string[]]>([
    ['listingNet STANDARD alone', listing({ postTopicType: 'STANDARD' }), []],
    ['listingNet EVENT complete', listing(event), []],
    [
      'listingNet EVENT without title, startAt, endAt',
      listing({ postTopicType: 'EVENT' }),
      ['/listingNet/endAt', '/listingNet/startAt', '/listingNet/title'],
    ],
    ['listingNet OFFER without title', listing({ ...event, postTopicType: 'OFFER', title: undefined }), ['/listingNet/title']],
    ['listingNet EVENT ending when it starts', listing({ ...event, endAt: event.startAt }), ['/listingNet/endAt']],
    ['listingNet EVENT ending 1 ms after it starts', listing({ ...event, endAt: '2030-01-01T10:00:00.001Z' }), []],
    ['listingNet ctaType BOOK without ctaLink', listing({ postTopicType: 'STANDARD', ctaType: 'BOOK' }), ['/listingNet/ctaLink']],
    ['listingNet ctaType BOOK with ctaLink', listing({ postTopicType: 'STANDARD', ctaType: 'BOOK', ctaLink: 'https://b.c' }), []],
    ['listingNet ctaType CALL without ctaLink', listing({ postTopicType: 'STANDARD', ctaType: 'CALL' }), []],
    ['listingNet couponCode on a STANDARD post', listing({ postTopicType: 'STANDARD', couponCode: 'X' }), ['/listingNet/couponCode']],
    ['listingNet termConditions on an EVENT', listing({ ...event, termConditions: 'T' }), ['/listingNet/termConditions']],
    [
      'listingNet couponCode and termConditions on an OFFER',
      listing({ ...event, postTopicType: 'OFFER', couponCode: 'X', termConditions: 'T' }),
      [],
    ],
    [
      'microblogNet pollDuration without a poll',
      { profileIds: ['p-microblogNet'], networks: { microblogNet: { pollDuration: 60 } } },
      ['/microblogNet/pollDuration'],
    ],
  ])('%s → %j', (_name, over, expected) => {
    expect(check(over)).toEqual(expected);
  });
});
