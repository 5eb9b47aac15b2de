import { validator } from '@social/http';
import { AppError } from '@social/errors';
import { CAROUSEL_CALLS_TO_ACTION, createPostSchema, LISTING_CTA_TYPES, REPLY_SETTINGS, updatePostSchema } from './post.schema';

const create = validator(createPostSchema);
const update = validator(updatePostSchema);
const problems = (fn: () => unknown): string[] => {
  try {
    fn();
    return [];
  } catch (err) {
    return (err as AppError).details.map((d) => d.path);
  }
};
const card = (callToAction: string) => ({ link: 'https://a.b/c', mediaLibId: 'm', callToAction });

describe('the request schema', () => {
  it.each([...CAROUSEL_CALLS_TO_ACTION])('accepts the carousel callToAction %s', (cta) => {
    expect(problems(() => create({ type: 'STATUS', generalNet: { carousels: [card(cta), card(cta)] } }))).toEqual([]);
  });

  it('rejects a callToAction outside the documented list', () => {
    expect(problems(() => create({ type: 'STATUS', generalNet: { carousels: [card('NO_BUTTON'), card('BUY_NOW')] } }))).toEqual([
      '/generalNet/carousels/1/callToAction',
    ]);
  });

  it.each([...REPLY_SETTINGS])('accepts microblogNet replySettings %s', (v) => {
    expect(problems(() => create({ type: 'STATUS', microblogNet: { replySettings: v } }))).toEqual([]);
  });

  it.each([...LISTING_CTA_TYPES])('accepts listingNet ctaType %s', (v) => {
    expect(problems(() => create({ type: 'STATUS', listingNet: { postTopicType: 'STANDARD', ctaType: v } }))).toEqual([]);
  });

  it.each<[string, unknown, string[]]>([
    ['a missing type', {}, ['/type']],
    ['an unknown type', { type: 'TWEET' }, ['/type']],
    ['an unknown network code', { type: 'STATUS', captions: [{ plainText: 'x', net: 'myspace' }] }, ['/captions/0/net']],
    ['a caption without text', { type: 'STATUS', captions: [{ net: null }] }, ['/captions/0/plainText']],
    ['a link that is not http(s)', { type: 'LINK', links: [{ link: 'ftp://x.y' }] }, ['/links/0/link']],
    ['a publishAt that is not a timestamp', { type: 'STATUS', publishAt: '2030-01-01' }, ['/publishAt']],
    ['listingNet without postTopicType', { type: 'STATUS', listingNet: { title: 'x' } }, ['/listingNet/postTopicType']],
    ['listingNet with an unknown postTopicType', { type: 'STATUS', listingNet: { postTopicType: 'SALE' } }, ['/listingNet/postTopicType']],
    ['an unknown replySettings', { type: 'STATUS', microblogNet: { replySettings: 'EVERYONE' } }, ['/microblogNet/replySettings']],
    ['a non-integer pollDuration', { type: 'STATUS', microblogNet: { pollDuration: 5.5 } }, ['/microblogNet/pollDuration']],
    ['a poll option that is not a string', { type: 'STATUS', conversationNet: { poll: ['a', 2] } }, ['/conversationNet/poll/1']],
    ['an unknown field of a network object', { type: 'STATUS', videoNet: { tags: [] } }, ['/videoNet/tags']],
    ['a non-boolean flag', { type: 'STATUS', shortVideoNet: { disableDuet: 'yes' } }, ['/shortVideoNet/disableDuet']],
    [
      'a carousel card without link and mediaLibId',
      { type: 'STATUS', generalNet: { carousels: [{}] } },
      ['/generalNet/carousels/0/link', '/generalNet/carousels/0/mediaLibId'],
    ],
  ])('rejects %s', (_name, body, expected) => {
    expect(problems(() => create(body)).sort()).toEqual(expected.sort());
  });

  it('accepts null for the optional parts in an update, and nothing at all', () => {
    expect(problems(() => update({}))).toEqual([]);
    expect(problems(() => update({ publishAt: null, briefing: null, videoNet: null }))).toEqual([]);
  });
});
