import { NETWORK_KEYS } from './networks';
import { POST_TYPES } from './post.types';

// The shape of a post request: types, enums and the fields a rule requires. Lengths and counts
// per network are not here: they come from the network catalog (post.rules.ts).

/** generalNet carousel buttons (spec 2.2 shows only NO_BUTTON; this is our documented list). */
export const CAROUSEL_CALLS_TO_ACTION = [
  'NO_BUTTON',
  'LEARN_MORE',
  'SHOP_NOW',
  'SIGN_UP',
  'BOOK_NOW',
  'CONTACT_US',
  'DOWNLOAD',
  'GET_OFFER',
  'SUBSCRIBE',
  'WATCH_MORE',
  'APPLY_NOW',
  'ORDER_NOW',
] as const;
export const LISTING_TOPIC_TYPES = ['STANDARD', 'EVENT', 'OFFER'] as const;
export const LISTING_CTA_TYPES = ['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'CALL'] as const;
export const REPLY_SETTINGS = ['FOLLOWING', 'MENTIONED_USERS', 'SUBSCRIBERS', 'VERIFIED'] as const;

const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const id = { type: 'string', minLength: 1, maxLength: 100 } as const;
const net = { enum: [null, ...NETWORK_KEYS] } as const;
const httpUrl = { type: 'string', format: 'uri', pattern: '^https?://' } as const;
const obj = (properties: Record<string, object>, required: string[] = []) => ({
  type: 'object' as string,
  additionalProperties: false,
  properties,
  required,
});
// The spec leaves a location's shape open; ours is the network's place id and its display name
// (OpenAPI NetLocation), closed like every other object of a request.
const netLocation = {
  ...obj({ id: { type: 'string', minLength: 1, maxLength: 200 }, name: { type: 'string', maxLength: 500 } }, ['id']),
  type: ['object', 'null'],
};

export const networkObjectSchemas: Record<(typeof NETWORK_KEYS)[number], object> = {
  generalNet: obj({
    netLocation,
    carousels: {
      type: ['array', 'null'],
      maxItems: 50,
      items: obj({ link: httpUrl, title: str, description: str, mediaLibId: id, callToAction: { enum: [...CAROUSEL_CALLS_TO_ACTION] } }, [
        'link',
        'mediaLibId',
      ]),
    },
    carouselEndCard: bool,
  }),
  photoNet: obj({ netLocation, shareToFeed: bool }),
  photoNetV2: obj({ shareToFeed: bool }),
  professionalNet: obj({ documentTitle: str }),
  shortVideoNet: obj({
    autoAddMusic: bool,
    disableComments: bool,
    isBrandedContent: bool,
    isBrandOrganic: bool,
    disableDuet: bool,
    disableStitch: bool,
    isAiGenerated: bool,
    title: str,
  }),
  conversationNet: obj({ poll: { type: 'array', maxItems: 50, items: str }, isGhostPost: bool }),
  listingNet: obj(
    {
      postTopicType: { enum: [...LISTING_TOPIC_TYPES] },
      title: str,
      startAt: { type: 'string', format: 'date-time' },
      endAt: { type: 'string', format: 'date-time' },
      ctaType: { enum: [...LISTING_CTA_TYPES] },
      ctaLink: str,
      couponCode: str,
      redeemOnlineUrl: str,
      termConditions: str,
    },
    ['postTopicType'],
  ),
  videoNet: obj({ title: str, madeForKids: bool, containsSyntheticMedia: bool, notifySubscribers: bool }),
  microblogNet: obj({
    poll: { type: 'array', maxItems: 50, items: str },
    pollDuration: { type: 'integer' },
    replySettings: { enum: [...REPLY_SETTINGS] },
    superFollowersOnly: bool,
    madeWithAi: bool,
    paidPartnership: bool,
  }),
};

// Keywords other than `type` only apply to values of their type, so this adds null without anyOf noise.
const nullable = (schema: { type: string; [k: string]: unknown }) => ({ ...schema, type: [schema.type, 'null'] });

const fields = {
  type: { enum: [...POST_TYPES] },
  // Guard rails against abusive bodies, not network rules.
  profileIds: { type: 'array', maxItems: 50, items: id },
  publishAt: nullable({ type: 'string', format: 'date-time' }),
  captions: {
    type: 'array',
    maxItems: 20,
    items: obj({ plainText: str, firstComment: nullable(obj({ plainText: str }, ['plainText'])), net }, ['plainText']),
  },
  medias: {
    type: 'array',
    maxItems: 20,
    items: obj({ mediaFiles: { type: 'array', maxItems: 50, items: obj({ mediaLibId: id }, ['mediaLibId']) }, net }, ['mediaFiles']),
  },
  links: {
    type: 'array',
    maxItems: 20,
    items: obj({ link: httpUrl, linkTitle: nullable(str), linkDescription: nullable(str), mediaLibId: nullable(id), net }, ['link']),
  },
  briefing: nullable(obj({ markdown: str }, ['markdown'])),
  labelIds: { type: 'array', maxItems: 50, items: id },
  ...Object.fromEntries(Object.entries(networkObjectSchemas).map(([k, s]) => [k, nullable(s as { type: string })])),
};

export const createPostSchema = { type: 'object', additionalProperties: false, properties: fields, required: ['type'] };
/** PUT: the same fields, every one optional; null removes an optional field or network object. */
export const updatePostSchema = { type: 'object', additionalProperties: false, properties: fields };
