import type { NetworkCode } from './network-codes';

/** Post types of the spec (2.2). */
export const POST_TYPES = ['STATUS', 'MEDIA', 'STORY', 'LINK', 'REEL'] as const;
export type PostType = (typeof POST_TYPES)[number];

/** Kinds of posts as the networks report them in insights (spec 2.6). */
export const NETWORK_POST_TYPES = ['FEED', 'TEMP', 'REEL', 'ADS'] as const;
export type NetworkPostType = (typeof NETWORK_POST_TYPES)[number];
export const NETWORK_POST_FORMATS = ['IMAGE', 'VIDEO', 'TEXT', 'CAROUSEL'] as const;
export type NetworkPostFormat = (typeof NETWORK_POST_FORMATS)[number];

export interface TextLimits {
  /** Maximum caption (post text / description) length, in Unicode code points. */
  caption: number;
  /** Maximum first-comment length; only present where first comments are supported. */
  firstComment?: number;
  /**
   * Maximum lengths of string fields of the network object of a post (spec 2.2), by field name,
   * e.g. videoNet `title` 100, listingNet `ctaLink` 255.
   */
  settingsFields?: Readonly<Record<string, number>>;
}

export interface MediaLimits {
  imageTypes: readonly string[];
  videoTypes: readonly string[];
  /** Most items one post may carry (images + videos). */
  maxItems: number;
  maxImages: number;
  maxVideos: number;
  /** Whether one post may carry images and videos together. */
  mixImagesAndVideos: boolean;
  maxImageBytes: number;
  maxVideoBytes: number;
  maxVideoDurationSec: number;
  minVideoDurationSec?: number;
}

export interface PollLimits {
  minOptions: number;
  maxOptions: number;
  maxOptionLength: number;
  /** Only where the network lets the author choose the duration (microblogNet). */
  minDurationMinutes?: number;
  maxDurationMinutes?: number;
}

/**
 * Whether a publish request's Idempotency-Key dedupes it on the network. Most real networks keep no
 * keys (`none`: every request creates a post, however often it is sent); some keep them for a while
 * (`window`: the same key within `windowMs` of the post it created answers with that post).
 */
export type IdempotencyTraits = { keys: 'none' } | { keys: 'window'; windowMs: number };

/** What a publisher must know to publish exactly once on a network (see publishingTraits). */
export interface PublishingTraits {
  idempotency: IdempotencyTraits;
  /**
   * How long the network may take to act on a publish request before it either stores the post or
   * abandons the request. A listing read this long after a request was sent is conclusive for it.
   */
  maxProcessingMs: number;
}

export interface PublishingRules extends PublishingTraits {
  postTypes: readonly PostType[];
  /** Most networks show stories without text (spec 2.2 rule 3). */
  storyCaptions: boolean;
  firstComment: boolean;
  /** How many links a LINK post may carry (0: the network has no link posts). */
  maxLinks: number;
  text: TextLimits;
  media: MediaLimits;
  poll?: PollLimits;
  /** generalNet link carousels (spec 2.2 rule 4 and 8: at least 2 cards). */
  carouselCards?: { min: number; max: number };
}

export interface InsightsSupport {
  daily: boolean;
  posts: boolean;
}

export interface NetworkInfo {
  code: NetworkCode;
  name: string;
  /** Prefix of every metric code of this network: `<prefix>-<name>` (spec 2.6). */
  metricPrefix: string;
  /** null: the network cannot be published to (adNet). */
  publishing: PublishingRules | null;
  insights: InsightsSupport;
  /**
   * How public profiles are found to add them as competitors (spec 4.1): by name (case-insensitive
   * substring) or by exact username; null when the network has no competitor search.
   */
  profileSearch: 'name' | 'username' | null;
}

export type MetricScope = 'daily' | 'post';

/**
 * How a value reads: `total` is a running total on that day (followers: never summed over days);
 * `count` counts events in the day or over the post's life; `percent` and `amount` (money) are
 * decimals; `seconds` is a duration.
 */
export type MetricValueKind = 'total' | 'count' | 'percent' | 'amount' | 'seconds';

export interface MetricDefinition {
  code: string;
  net: NetworkCode;
  scope: MetricScope;
  /** The part after the prefix, e.g. `post-likes`. */
  name: string;
  label: string;
  valueKind: MetricValueKind;
  /** Only API-supported metrics can be read from the network (spec 2.6). */
  apiSupported: boolean;
  /** Calculated by the network's own UI from other metrics; never served by the API (spec 2.6). */
  formula: boolean;
  /** Visible on profiles the reader does not own, so usable for competitors (spec 4.2). */
  public: boolean;
  /** ISO date; in the past the metric is deprecated, in the future it is soon deprecated. */
  deprecatedAt?: string;
  deprecationArticle?: string;
}

export type DeprecationState = 'active' | 'deprecated' | 'futureDeprecated';
