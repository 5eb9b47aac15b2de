import {
  checkPostContent,
  networkRef,
  PUBLISHING_NETWORK_CODES,
  type ContentViolation,
  type NetworkCode,
  type PostContent as CatalogContent,
} from '@social/networks';

// What posts needs from the network catalog (@social/networks, shared with the publisher and the
// sandbox). Every per-network limit lives there, written once with its source; posts never
// writes one down.

/** The networks a post can target: the keys of its network objects (spec 2.1). */
export type NetworkKey = Exclude<NetworkCode, 'adNet'>;
export const NETWORK_KEYS = PUBLISHING_NETWORK_CODES as readonly NetworkKey[];

export const isNetworkKey = (v: unknown): v is NetworkKey => typeof v === 'string' && (NETWORK_KEYS as readonly string[]).includes(v);

export const netRef = (code: NetworkKey) => networkRef(code);

/** What one network sees of a post (the effective caption, media and links for that network). */
export type NetworkContent = CatalogContent;

/** Path into NetworkContent (/type, /caption, /firstComment, /media, /media/2/mimeType, /links, /settings/title). */
export type NetworkViolation = ContentViolation;

/** The catalog's rules of one network applied to the content it would receive. */
export function checkNetworkContent(net: NetworkKey, content: NetworkContent): NetworkViolation[] {
  return checkPostContent(net, content);
}
