import type { ErrorDetail } from '@social/errors';
import type { MediaItem, ProfileItem } from './ports';
import { networkObjectRules } from './network-objects.rules';
import { checkNetworkContent, isNetworkKey, NETWORK_KEYS, type NetworkKey, type NetworkViolation } from './networks';
import type { PostRecord } from './post.types';

/** The content of a post that the rules look at (a saved post or the result of applying a PUT). */
export type PostContent = Pick<PostRecord, 'type' | 'profileIds' | 'captions' | 'medias' | 'links' | 'labelIds' | 'networks'>;

/**
 * `save`: create and update: everything referenced exists, and the content fits every targeted network.
 * `publish`: validate, schedule, publishNow: the same, and the post can go out now: it has profiles
 * and each is connected for publishing.
 */
export type RuleMode = 'save' | 'publish';

export interface RuleContext {
  mode: RuleMode;
  profiles: Map<string, ProfileItem>;
  media: Map<string, MediaItem>;
  labelIds: Set<string>;
}

/** Every mediaLibId a post references, so one BatchGetMedia answers all the media rules. */
export function referencedMediaIds(p: Pick<PostContent, 'medias' | 'links' | 'networks'>): string[] {
  const ids = p.medias.flatMap((g) => g.mediaFiles.map((f) => f.mediaLibId));
  for (const l of p.links) if (l.mediaLibId) ids.push(l.mediaLibId);
  for (const card of carouselsOf(p)) if (typeof card.mediaLibId === 'string') ids.push(card.mediaLibId);
  return [...new Set(ids)];
}

const carouselsOf = (p: Pick<PostContent, 'networks'>): Record<string, unknown>[] => {
  const c = p.networks.generalNet?.['carousels'];
  return Array.isArray(c) ? (c as Record<string, unknown>[]) : [];
};

/** The networks of the post's profiles that exist in the workspace (known network codes only). */
export function targetedNetworks(p: Pick<PostContent, 'profileIds'>, profiles: Map<string, ProfileItem>): Set<NetworkKey> {
  const nets = new Set<NetworkKey>();
  for (const id of p.profileIds) {
    const code = profiles.get(id)?.net?.code;
    if (isNetworkKey(code)) nets.add(code);
  }
  return nets;
}

const isVideo = (m: MediaItem) => m.kind === 'VIDEO' || m.mimeType.startsWith('video/');

/**
 * Every problem of a post, each with the JSON path of the request field it concerns; a problem of
 * one profile or network names it in the message. Create, update, validate and schedule all use it,
 * so what one accepts the others accept.
 */
export function checkPost(p: PostContent, ctx: RuleContext): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  out.push(...profileRules(p, ctx));
  out.push(...labelRules(p, ctx));
  const targeted = targetedNetworks(p, ctx.profiles);
  out.push(...perNetworkItemRules(p, targeted));
  out.push(...mediaReferenceRules(p, ctx));
  out.push(...typeRules(p, ctx));
  for (const net of NETWORK_KEYS) {
    const o = p.networks[net];
    if (o) out.push(...networkObjectRules(net, o));
  }
  // A problem posts already reported for a field covers what the catalog finds in it (e.g. a
  // STATUS post with medias is one problem, not one more per targeted network).
  const owned = out.map((d) => d.path);
  const covered = (path: string) => owned.some((o) => path === o || path.startsWith(`${o}/`));
  out.push(...catalogRules(p, ctx, targeted).filter((d) => !covered(d.path)));
  return out;
}

function profileRules(p: PostContent, ctx: RuleContext): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  if (ctx.mode === 'publish' && p.profileIds.length === 0) {
    out.push({ path: '/profileIds', message: 'must name at least one profile to publish to' });
  }
  const seen = new Set<string>();
  p.profileIds.forEach((id, i) => {
    const path = `/profileIds/${i}`;
    if (seen.has(id)) return out.push({ path, message: `profile ${id} is listed twice` });
    seen.add(id);
    const profile = ctx.profiles.get(id);
    if (!profile) return out.push({ path, message: `profile ${id} is not a connected profile of this workspace` });
    if (!isNetworkKey(profile.net?.code)) {
      return out.push({
        path,
        message: `profile ${id} (${profile.net?.code ?? 'no network'}) is on a network posts cannot be published to`,
      });
    }
    if (ctx.mode === 'publish' && !profile.publishReady) {
      out.push({
        path,
        message: `profile "${profile.name}" (${profile.net!.code}) is not connected for publishing (status ${profile.statusLevel || 'unknown'}); reconnect it`,
      });
    }
    return undefined;
  });
  return out;
}

function labelRules(p: PostContent, ctx: RuleContext): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  p.labelIds.forEach((id, i) => {
    if (!ctx.labelIds.has(id)) out.push({ path: `/labelIds/${i}`, message: `label ${id} does not exist in this workspace` });
  });
  return out;
}

/** Per-network captions, medias and links: one per network, and only for networks the post targets. */
function perNetworkItemRules(p: PostContent, targeted: Set<NetworkKey>): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const lists = [
    ['captions', p.captions, true],
    ['medias', p.medias, true],
    ['links', p.links, false],
  ] as const;
  for (const [field, items, onePerNet] of lists) {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const net = item.net ?? null;
      if (net !== null && !targeted.has(net)) {
        out.push({ path: `/${field}/${i}/net`, message: `the post targets no ${net} profile` });
      }
      const key = net ?? '(common)';
      if (onePerNet && seen.has(key)) {
        out.push({
          path: `/${field}/${i}/net`,
          message: net ? `another item of ${field} is already for ${net}` : `another item of ${field} is already common (net null)`,
        });
      }
      seen.add(key);
    });
  }
  for (const net of NETWORK_KEYS) {
    if (p.networks[net] && !targeted.has(net)) {
      out.push({ path: `/${net}`, message: `the post targets no ${net} profile; add one or remove these settings` });
    }
  }
  return out;
}

function mediaReferenceRules(p: PostContent, ctx: RuleContext): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const check = (id: string, path: string) => {
    const m = ctx.media.get(id);
    if (!m) out.push({ path, message: `media ${id} is not in this workspace's library` });
    else if (m.status !== 'SUCCESS') out.push({ path, message: `media ${id} is ${m.status}; only media in status SUCCESS can be used` });
  };
  p.medias.forEach((g, gi) => g.mediaFiles.forEach((f, fi) => check(f.mediaLibId, `/medias/${gi}/mediaFiles/${fi}/mediaLibId`)));
  p.links.forEach((l, i) => l.mediaLibId && check(l.mediaLibId, `/links/${i}/mediaLibId`));
  carouselsOf(p).forEach((c, i) => typeof c.mediaLibId === 'string' && check(c.mediaLibId, `/generalNet/carousels/${i}/mediaLibId`));
  return out;
}

/** What each type requires or forbids, whatever the networks (spec 2.2 rule 2). */
function typeRules(p: PostContent, ctx: RuleContext): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const files = p.medias.reduce((n, g) => n + g.mediaFiles.length, 0);
  switch (p.type) {
    case 'STATUS':
      if (files > 0) out.push({ path: '/medias', message: 'STATUS posts are text only: remove the medias' });
      if (p.links.length > 0) out.push({ path: '/links', message: 'STATUS posts are text only: remove the links' });
      break;
    case 'MEDIA':
    case 'STORY':
      if (files === 0) out.push({ path: '/medias', message: `${p.type} posts need at least one media file` });
      break;
    case 'LINK':
      if (p.links.length === 0) out.push({ path: '/links', message: 'LINK posts need a link' });
      if (files > 0) out.push({ path: '/medias', message: 'LINK posts carry no medias: the preview image is links[].mediaLibId' });
      break;
    case 'REEL':
      if (p.medias.length === 0) out.push({ path: '/medias', message: 'REEL posts need exactly one video' });
      p.medias.forEach((g, gi) => {
        if (g.mediaFiles.length !== 1) {
          out.push({ path: `/medias/${gi}/mediaFiles`, message: `REEL posts carry exactly one video (got ${g.mediaFiles.length} files)` });
          return;
        }
        const m = ctx.media.get(g.mediaFiles[0]!.mediaLibId);
        if (m && m.status === 'SUCCESS' && !isVideo(m)) {
          out.push({ path: `/medias/${gi}/mediaFiles/0/mediaLibId`, message: `REEL posts need a video, not ${m.mimeType || m.kind}` });
        }
      });
      break;
  }
  return out;
}

/** The catalog's rules of each targeted network, on the content that network will receive. */
function catalogRules(p: PostContent, ctx: RuleContext, targeted: Set<NetworkKey>): ErrorDetail[] {
  // The same problem found on several networks is reported once, naming them all.
  const grouped = new Map<string, { path: string; message: string; nets: NetworkKey[] }>();
  for (const net of NETWORK_KEYS) {
    if (!targeted.has(net)) continue;
    const captionIndex = pickIndex(p.captions, net);
    const groupIndex = pickIndex(p.medias, net);
    const ownLinks = p.links.some((l) => l.net === net);
    const links = p.links.filter((l) => (ownLinks ? l.net === net : (l.net ?? null) === null));
    const caption = captionIndex === null ? null : p.captions[captionIndex]!;
    const files = groupIndex === null ? [] : p.medias[groupIndex]!.mediaFiles;
    // Media the media rules already rejected are left out; `fileIndex` maps back to the request.
    const fileIndex: number[] = [];
    const media: { mimeType: string; sizeBytes: number | null; durationSec: number | null }[] = [];
    files.forEach((f, i) => {
      const m = ctx.media.get(f.mediaLibId);
      if (m && m.status === 'SUCCESS') {
        fileIndex.push(i);
        media.push({ mimeType: m.mimeType, sizeBytes: m.sizeBytes, durationSec: m.durationSec });
      }
    });
    const violations = checkNetworkContent(net, {
      type: p.type,
      caption: caption?.plainText ?? null,
      firstComment: caption?.firstComment?.plainText ?? null,
      media,
      links,
      settings: p.networks[net] ?? null,
    });
    // With some of its files unusable (already reported) the group's counts mean nothing yet.
    const someRejected = fileIndex.length < files.length;
    for (const v of violations) {
      if (someRejected && v.path.startsWith('/media')) continue;
      const path = requestPath(v, net, captionIndex, groupIndex, fileIndex);
      const key = `${path}\0${v.message}`;
      const g = grouped.get(key);
      if (g) g.nets.push(net);
      else grouped.set(key, { path, message: v.message, nets: [net] });
    }
  }
  return [...grouped.values()].map((g) => ({ path: g.path, message: `${g.nets.join(', ')}: ${g.message}` }));
}

/** The item for the network if there is one, else the common one (net null). */
function pickIndex(items: readonly { net: NetworkKey | null }[], net: NetworkKey): number | null {
  const own = items.findIndex((i) => i.net === net);
  if (own >= 0) return own;
  const common = items.findIndex((i) => (i.net ?? null) === null);
  return common >= 0 ? common : null;
}

function requestPath(
  v: NetworkViolation,
  net: NetworkKey,
  captionIndex: number | null,
  groupIndex: number | null,
  fileIndex: number[],
): string {
  const [, head, ...rest] = v.path.split('/');
  switch (head) {
    case 'type':
      return '/type';
    case 'caption':
      return captionIndex === null ? '/captions' : `/captions/${captionIndex}/plainText`;
    case 'firstComment':
      return captionIndex === null ? '/captions' : `/captions/${captionIndex}/firstComment/plainText`;
    case 'media': {
      if (groupIndex === null) return '/medias';
      if (rest.length === 0) return `/medias/${groupIndex}/mediaFiles`;
      return `/medias/${groupIndex}/mediaFiles/${fileIndex[Number(rest[0])] ?? rest[0]}/mediaLibId`;
    }
    case 'links':
      return '/links';
    case 'settings':
      return `/${net}${rest.length ? `/${rest.join('/')}` : ''}`;
    default:
      return `/${net}`;
  }
}
