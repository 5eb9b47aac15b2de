// What posts needs from the network catalog. Every per-network limit lives in the catalog
// (@social/networks, shared with the publisher and the sandbox); posts never writes one down.
// Until the catalog package is merged this module only knows the codes and names of spec 2.1.

export const NETWORK_KEYS = [
  'generalNet',
  'photoNet',
  'photoNetV2',
  'professionalNet',
  'shortVideoNet',
  'conversationNet',
  'listingNet',
  'videoNet',
  'microblogNet',
] as const;
export type NetworkKey = (typeof NETWORK_KEYS)[number];

const NAMES: Record<NetworkKey, string> = {
  generalNet: 'General Net',
  photoNet: 'Photo Net',
  photoNetV2: 'Photo Net (v2)',
  professionalNet: 'Professional Net',
  shortVideoNet: 'Short Video Net',
  conversationNet: 'Conversation Net',
  listingNet: 'Listing Net',
  videoNet: 'Video Net',
  microblogNet: 'Microblog Net',
};

export const isNetworkKey = (v: unknown): v is NetworkKey => typeof v === 'string' && (NETWORK_KEYS as readonly string[]).includes(v);

export const netRef = (code: NetworkKey) => ({ code, name: NAMES[code] });

/** What one network sees of a post (the effective caption, media and links for that network). */
export interface NetworkContent {
  type: string;
  caption?: string | null;
  firstComment?: string | null;
  media?: readonly { mimeType: string; sizeBytes?: number | null; durationSec?: number | null }[];
  links?: readonly unknown[];
  settings?: Readonly<Record<string, unknown>> | null;
}

export interface NetworkViolation {
  /** Path into NetworkContent: /type, /caption, /firstComment, /media, /media/2/mimeType, /links, /settings/title. */
  path: string;
  message: string;
}

/** The catalog's rules of one network applied to one post. */
export function checkNetworkContent(_net: NetworkKey, _content: NetworkContent): NetworkViolation[] {
  return [];
}
