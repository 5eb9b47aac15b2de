import { getNetwork } from './catalog';
import type { NetworkCode } from './network-codes';
import type { PostType, PublishingRules } from './types';

/** What a network sees of one post: enough to apply its rules, nothing workspace-specific. */
export interface PostContent {
  type: PostType;
  caption?: string | null;
  firstComment?: string | null;
  media?: readonly { mimeType: string; sizeBytes?: number | null; durationSec?: number | null }[];
  links?: readonly unknown[];
  /** The network object of the post (spec 2.2), e.g. `{title, madeForKids}` for videoNet. */
  settings?: Readonly<Record<string, unknown>> | null;
}

export interface ContentViolation {
  /** JSON-pointer-like path into PostContent, e.g. `/media/2/mimeType`. */
  path: string;
  message: string;
}

/** Characters as users count them: code points, so an emoji is one character, not two. */
export function textLength(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

const isVideo = (mime: string) => mime.startsWith('video/');
const TYPES_NEEDING_MEDIA: readonly PostType[] = ['MEDIA', 'STORY', 'REEL'];

/**
 * Checks a post against the catalog rules of one network: post type, text lengths, media count,
 * types, sizes and durations, links, polls, and the lengths of network-object fields. Returns every
 * violation (empty when the network would accept it). Both posts validation and the sandbox use it,
 * so "valid" means the same thing on both sides.
 */
export function checkPostContent(net: NetworkCode, post: PostContent): ContentViolation[] {
  const rules = getNetwork(net).publishing;
  if (!rules) return [{ path: '', message: `${getNetwork(net).name} does not support publishing.` }];
  if (!rules.postTypes.includes(post.type)) {
    return [{ path: '/type', message: `${post.type} posts are not supported (supported: ${rules.postTypes.join(', ')}).` }];
  }
  return [...checkText(rules, post), ...checkMedia(rules, post), ...checkLinks(rules, post), ...checkSettings(net, rules, post)];
}

function checkText(rules: PublishingRules, post: PostContent): ContentViolation[] {
  const out: ContentViolation[] = [];
  const caption = post.caption ?? '';
  if (post.type === 'STORY' && caption.length > 0 && !rules.storyCaptions) {
    out.push({ path: '/caption', message: 'Stories do not support captions on this network.' });
  } else if (textLength(caption) > rules.text.caption) {
    out.push({ path: '/caption', message: `must be at most ${rules.text.caption} characters` });
  }
  const comment = post.firstComment ?? '';
  if (comment.length > 0) {
    if (!rules.firstComment) out.push({ path: '/firstComment', message: 'First comments are not supported on this network.' });
    else if (rules.text.firstComment !== undefined && textLength(comment) > rules.text.firstComment) {
      out.push({ path: '/firstComment', message: `must be at most ${rules.text.firstComment} characters` });
    }
  }
  if (post.type === 'STATUS' && caption.trim().length === 0) {
    out.push({ path: '/caption', message: 'STATUS posts need text.' });
  }
  return out;
}

function checkMedia(rules: PublishingRules, post: PostContent): ContentViolation[] {
  const media = post.media ?? [];
  const limits = rules.media;
  const out: ContentViolation[] = [];
  if (post.type === 'STATUS' && media.length > 0) out.push({ path: '/media', message: 'STATUS posts carry no media.' });
  if (TYPES_NEEDING_MEDIA.includes(post.type) && media.length === 0) {
    out.push({ path: '/media', message: `${post.type} posts need at least one media item.` });
  }
  if (post.type === 'REEL' && media.some((m) => !isVideo(m.mimeType))) {
    out.push({ path: '/media', message: 'REEL posts are videos only.' });
  }
  const videos = media.filter((m) => isVideo(m.mimeType)).length;
  const images = media.length - videos;
  if (media.length > limits.maxItems) out.push({ path: '/media', message: `at most ${limits.maxItems} items` });
  if (images > limits.maxImages) {
    out.push({ path: '/media', message: limits.maxImages === 0 ? 'images are not supported' : `at most ${limits.maxImages} images` });
  }
  if (videos > limits.maxVideos) {
    out.push({ path: '/media', message: limits.maxVideos === 0 ? 'videos are not supported' : `at most ${limits.maxVideos} videos` });
  }
  if (images > 0 && videos > 0 && !limits.mixImagesAndVideos) {
    out.push({ path: '/media', message: 'images and videos cannot be combined in one post' });
  }
  media.forEach((m, i) => {
    const video = isVideo(m.mimeType);
    const accepted = video ? limits.videoTypes : limits.imageTypes;
    // A kind the network refuses altogether is already reported once by the counts above.
    if (accepted.length === 0) return;
    if (!accepted.includes(m.mimeType)) {
      out.push({
        path: `/media/${i}/mimeType`,
        message: `${m.mimeType} is not accepted (accepted: ${[...limits.imageTypes, ...limits.videoTypes].join(', ') || 'none'})`,
      });
      return;
    }
    const maxBytes = video ? limits.maxVideoBytes : limits.maxImageBytes;
    if (m.sizeBytes != null && m.sizeBytes > maxBytes) {
      out.push({ path: `/media/${i}/sizeBytes`, message: `must be at most ${maxBytes} bytes` });
    }
    if (video && m.durationSec != null) {
      if (m.durationSec > limits.maxVideoDurationSec) {
        out.push({ path: `/media/${i}/durationSec`, message: `must be at most ${limits.maxVideoDurationSec} seconds` });
      }
      if (limits.minVideoDurationSec !== undefined && m.durationSec < limits.minVideoDurationSec) {
        out.push({ path: `/media/${i}/durationSec`, message: `must be at least ${limits.minVideoDurationSec} seconds` });
      }
    }
  });
  return out;
}

function checkLinks(rules: PublishingRules, post: PostContent): ContentViolation[] {
  const links = post.links ?? [];
  if (post.type === 'LINK' && links.length === 0) return [{ path: '/links', message: 'LINK posts need a link.' }];
  if (links.length > rules.maxLinks) {
    return [{ path: '/links', message: rules.maxLinks === 0 ? 'links are not supported' : `at most ${rules.maxLinks} link(s)` }];
  }
  return [];
}

function checkSettings(net: NetworkCode, rules: PublishingRules, post: PostContent): ContentViolation[] {
  const settings = post.settings ?? {};
  const out: ContentViolation[] = [];
  for (const [field, max] of Object.entries(rules.text.settingsFields ?? {})) {
    const v = settings[field];
    if (typeof v === 'string' && textLength(v) > max) {
      out.push({ path: `/settings/${field}`, message: `must be at most ${max} characters` });
    }
  }
  const poll = settings['poll'];
  if (poll !== undefined && poll !== null) {
    if (!rules.poll) out.push({ path: '/settings/poll', message: 'polls are not supported on this network' });
    else if (!Array.isArray(poll) || poll.length < rules.poll.minOptions || poll.length > rules.poll.maxOptions) {
      out.push({ path: '/settings/poll', message: `must have ${rules.poll.minOptions} to ${rules.poll.maxOptions} options` });
    } else {
      poll.forEach((o: unknown, i: number) => {
        if (typeof o !== 'string' || o.length === 0 || textLength(o) > rules.poll!.maxOptionLength) {
          out.push({ path: `/settings/poll/${i}`, message: `must be 1 to ${rules.poll!.maxOptionLength} characters` });
        }
      });
    }
  }
  const duration = settings['pollDuration'];
  const p = rules.poll;
  if (duration !== undefined && duration !== null && p?.minDurationMinutes !== undefined && p.maxDurationMinutes !== undefined) {
    if (typeof duration !== 'number' || !Number.isInteger(duration) || duration < p.minDurationMinutes || duration > p.maxDurationMinutes) {
      out.push({
        path: '/settings/pollDuration',
        message: `must be an integer from ${p.minDurationMinutes} to ${p.maxDurationMinutes} minutes`,
      });
    }
  }
  const cards = settings['carousels'];
  if (rules.carouselCards && Array.isArray(cards) && cards.length > 0) {
    const { min, max } = rules.carouselCards;
    if (cards.length < min || cards.length > max) {
      out.push({ path: '/settings/carousels', message: `a ${getNetwork(net).name} carousel needs ${min} to ${max} cards` });
    }
  }
  return out;
}
