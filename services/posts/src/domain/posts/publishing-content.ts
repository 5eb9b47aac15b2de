import { NETWORK_OBJECT_DEFAULTS } from './network-objects.rules';
import type { NetworkKey } from './networks';
import type { PostRecord } from './post.types';

/**
 * What one network receives of a post: its own caption, media group and links when the post has
 * them, else the common ones (net null); the rules check exactly this (post.rules.ts).
 */
export function contentForNetwork(p: PostRecord, net: NetworkKey) {
  const pick = <T extends { net: NetworkKey | null }>(items: T[]) => items.find((i) => i.net === net) ?? items.find((i) => i.net === null);
  const ownLinks = p.links.some((l) => l.net === net);
  return {
    caption: pick(p.captions) ?? null,
    mediaLibIds: pick(p.medias)?.mediaFiles.map((f) => f.mediaLibId) ?? [],
    links: p.links.filter((l) => (ownLinks ? l.net === net : l.net === null)),
    settings: { ...(NETWORK_OBJECT_DEFAULTS[net] ?? {}), ...(p.networks[net] ?? {}) },
  };
}
