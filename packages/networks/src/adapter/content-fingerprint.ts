import { createHash } from 'node:crypto';
import type { PublishPost } from './network-adapter';

/**
 * What identifies a post's content across tries and in a network's listing: SHA-256 (hex) of the
 * canonical JSON of its type, texts, link targets and media types.
 *
 * It deliberately leaves out what changes from one try to the next (signed media URLs and their
 * expiry, sizes, uploaded bytes) and the network settings, because real networks echo only these
 * fields when they list an account's posts. The publisher applies it to what it sends; adapters apply
 * it to listed posts (built from the listed fields); a post that was sent and the same post as listed
 * therefore have equal fingerprints.
 */
export function contentFingerprint(post: PublishPost): string {
  const content = {
    type: post.type,
    caption: post.caption ?? null,
    firstComment: post.firstComment ?? null,
    links: post.links.map((l) => l.link),
    mediaTypes: post.media.map((m) => m.mimeType),
  };
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}

/** JSON with object keys sorted (undefined members dropped), so equal content gives equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
