import type { MediaItem, ProfileItem } from './ports';
import type { Label } from '../labels/ports';
import { NETWORK_OBJECT_DEFAULTS } from './network-objects.rules';
import { NETWORK_KEYS, netRef, type NetworkKey } from './networks';
import type { PostRecord } from './post.types';

export interface ViewLookups {
  profiles: Map<string, ProfileItem>;
  media: Map<string, MediaItem>;
  labels: Map<string, Label>;
}

const netOrNull = (net: NetworkKey | null) => (net ? netRef(net) : null);
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The Post of spec 2.2 as GET, list, create, update and stage changes return it. */
export function postView(p: PostRecord, l: ViewLookups): Record<string, unknown> {
  const entryOf = new Map(p.plan.map((e) => [e.profileId, e]));
  const targeted = new Set(Object.values(p.profileNets));
  const view: Record<string, unknown> = {
    id: p.id,
    type: p.type,
    stage: p.stage,
    publishAt: iso(p.publishAt),
    budget: 0,
    profiles: p.profileIds.map((id) => {
      const profile = l.profiles.get(id);
      const net = p.profileNets[id];
      return {
        id,
        // A profile disconnected since the post was saved keeps its place, with what we still know.
        name: profile?.name ?? '',
        username: profile?.username ?? '',
        picture: profile?.picture ?? '',
        net: profile?.net ?? (net ? netRef(net) : null),
        publishStatus: entryOf.get(id)?.status ?? null,
        // Added to spec 2.2: why this profile's publish failed (or was cancelled), else null.
        publishError: entryOf.get(id)?.error ?? null,
      };
    }),
    captions: p.captions.map((c) => ({ plainText: c.plainText, net: netOrNull(c.net), firstComment: c.firstComment ?? null })),
    medias: p.medias.flatMap((g) =>
      g.mediaFiles.map((f) => {
        const m = l.media.get(f.mediaLibId);
        return { id: f.mediaLibId, url: m?.url ?? null, type: m?.mimeType || null, net: netOrNull(g.net) };
      }),
    ),
    links: p.links.map((k) => ({
      link: k.link,
      linkTitle: k.linkTitle ?? null,
      linkDescription: k.linkDescription ?? null,
      mediaLibId: k.mediaLibId ?? null,
      net: netOrNull(k.net),
    })),
    labels: p.labelIds.map((id) => l.labels.get(id)).filter((x): x is Label => x !== undefined),
    briefing: p.briefing ?? null,
  };
  // Spec 2.2 rule 5: settings exist only for the networks the post targets.
  for (const net of NETWORK_KEYS) {
    if (!targeted.has(net)) continue;
    const given = p.networks[net];
    const defaults = NETWORK_OBJECT_DEFAULTS[net];
    if (given || defaults) view[net] = { ...(defaults ?? {}), ...(given ?? {}) };
  }
  view['stageHistory'] = p.stageHistory.map((h) => ({
    at: new Date(h.at).toISOString(),
    operation: h.operation,
    from: h.from,
    to: h.to,
    comment: h.comment,
  }));
  view['createdAt'] = p.createdAt.toISOString();
  view['updatedAt'] = p.updatedAt.toISOString();
  return view;
}
