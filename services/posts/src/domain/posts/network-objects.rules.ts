import type { ErrorDetail } from '@social/errors';
import type { NetworkKey } from './networks';
import type { NetworkObject } from './post.types';

// Rules of the network objects that are about meaning, not length: which field a choice makes
// required and how two fields relate. Lengths and counts are the catalog's (post.rules.ts).

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

/** listingNet (spec 2.2): title, startAt and endAt for EVENT and OFFER; ctaLink unless the button is CALL. */
export function listingNetRules(o: NetworkObject): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const topic = o['postTopicType'];
  const dated = topic === 'EVENT' || topic === 'OFFER';
  if (dated) {
    for (const field of ['title', 'startAt', 'endAt']) {
      if (!present(o[field])) out.push({ path: `/listingNet/${field}`, message: `is required for ${String(topic)} posts` });
    }
    if (present(o['startAt']) && present(o['endAt']) && Date.parse(String(o['endAt'])) <= Date.parse(String(o['startAt']))) {
      out.push({ path: '/listingNet/endAt', message: 'must be after startAt' });
    }
  }
  if (present(o['ctaType']) && o['ctaType'] !== 'CALL' && !present(o['ctaLink'])) {
    out.push({ path: '/listingNet/ctaLink', message: `is required when ctaType is ${String(o['ctaType'])} (only CALL needs no link)` });
  }
  for (const field of ['couponCode', 'termConditions']) {
    if (present(o[field]) && topic !== 'OFFER') out.push({ path: `/listingNet/${field}`, message: 'is only for OFFER posts' });
  }
  return out;
}

/** microblogNet: a duration without a poll means nothing. */
export function microblogNetRules(o: NetworkObject): ErrorDetail[] {
  if (present(o['pollDuration']) && !(Array.isArray(o['poll']) && o['poll'].length > 0)) {
    return [{ path: '/microblogNet/pollDuration', message: 'needs a poll' }];
  }
  return [];
}

const RULES: Partial<Record<NetworkKey, (o: NetworkObject) => ErrorDetail[]>> = {
  listingNet: listingNetRules,
  microblogNet: microblogNetRules,
};

export function networkObjectRules(net: NetworkKey, o: NetworkObject): ErrorDetail[] {
  return RULES[net]?.(o) ?? [];
}

/** Defaults shown in responses for a targeted network without (some of) its settings (spec 2.2). */
export const NETWORK_OBJECT_DEFAULTS: Partial<Record<NetworkKey, NetworkObject>> = {
  generalNet: { netLocation: null, carousels: null, carouselEndCard: false },
  photoNet: { netLocation: null, shareToFeed: true },
  photoNetV2: { shareToFeed: true },
  videoNet: { madeForKids: false, containsSyntheticMedia: false, notifySubscribers: true },
};
