import type { NetworkCode } from '../catalog/network-codes';
import type { NetworkPostFormat, NetworkPostType, PostType } from '../catalog/types';

export interface PublishMedia {
  mimeType: string;
  /** Where the network can fetch the file (e.g. a signed storage URL). */
  url?: string;
  /** For networks that take an upload instead of a URL; called at most once per publish. */
  fetchBytes?: () => Promise<Uint8Array>;
  sizeBytes?: number | null;
  durationSec?: number | null;
  width?: number | null;
  height?: number | null;
}

export interface PublishLink {
  link: string;
  title?: string | null;
  description?: string | null;
  imageUrl?: string | null;
}

export interface PublishPost {
  type: PostType;
  caption: string | null;
  firstComment: string | null;
  media: PublishMedia[];
  links: PublishLink[];
  /** The network object of the post (spec 2.2), passed through as given. */
  settings: Record<string, unknown> | null;
}

export interface AccountRef {
  net: NetworkCode;
  /** The network's id of the connected (own) account acting. */
  accountId: string;
  accessToken: string;
}

export interface PublishInput extends AccountRef {
  /**
   * Sent as the Idempotency-Key header on every publish. Only networks whose publishingTraits say
   * `keys: 'window'` dedupe by it (within the window); the others ignore it and create a post per
   * request.
   */
  idempotencyKey: string;
  post: PublishPost;
}

export interface PublishResult {
  networkPostId: string;
  publishedAt: string;
  /** True when the network answered from an earlier publish with the same key. */
  replayed?: boolean;
}

export interface LookupPublishedInput extends AccountRef {
  idempotencyKey: string;
}

export interface RecentPostsInput extends AccountRef {
  /** ISO date-time: only posts published at or after it. */
  since: string;
  /** From a previous page's `nextCursor`. */
  cursor?: string;
  /** Posts per page, 1 to 100 (50 when absent). */
  limit?: number;
}

/** A post of the account as the network lists it, reduced to what reconciling needs. */
export interface RecentPost {
  networkPostId: string;
  publishedAt: string;
  /** contentFingerprint of the listed post: equal to that of the PublishPost it was published from. */
  fingerprint: string;
}

export interface RecentPostsResult {
  /** Newest first. */
  items: RecentPost[];
  nextCursor: string | null;
}

export type ProfileKind = 'own' | 'business' | 'creator' | 'personal';

export interface NetworkProfile {
  id: string;
  name: string;
  username: string;
  picture: string;
  kind: ProfileKind;
  followers: number;
}

export interface SearchProfilesInput extends AccountRef {
  query: string;
}

export interface SearchProfilesResult {
  items: NetworkProfile[];
  /**
   * True when the query is exactly the username of a personal account, which username-search
   * networks never return (spec 4.1: area=insights then answers 400).
   */
  personalAccountMatch: boolean;
}

export interface ProfileInfoInput {
  net: NetworkCode;
  profileId: string;
  /** A connected account's token; without it only public profiles are visible. */
  accessToken?: string;
}

export interface MetricsInput {
  net: NetworkCode;
  /** The account whose metrics are read. */
  accountId: string;
  /**
   * The account's own token gives every served metric; another account's token (or none) reads it
   * as a public profile (competitors), limited to public metrics.
   */
  accessToken?: string;
  /** Inclusive dates, YYYY-MM-DD (UTC). */
  since: string;
  until: string;
  metrics: string[];
}

export type UnavailableReason = 'NOT_API_SUPPORTED' | 'FORMULA' | 'NOT_PUBLIC';

export interface UnavailableMetric {
  metric: string;
  reason: UnavailableReason;
}

export interface DailyMetricsResult {
  /** One entry per day that has data, oldest first. A metric missing from a day has no value
   *  for it (e.g. after its deprecation date). */
  days: { date: string; values: Record<string, number> }[];
  unavailable: UnavailableMetric[];
}

export interface PostMetricsInput extends MetricsInput {
  /** From a previous page's `nextCursor`. */
  cursor?: string;
  limit?: number;
}

export interface NetworkPostMetrics {
  id: string;
  type: NetworkPostType;
  format: NetworkPostFormat;
  caption: string;
  url: string;
  picture: string | null;
  publishedAt: string;
  values: Record<string, number>;
}

export interface PostMetricsResult {
  /** Posts published between since and until, newest first. */
  posts: NetworkPostMetrics[];
  nextCursor: string | null;
  unavailable: UnavailableMetric[];
}

export interface ConnectAccountInput {
  net: NetworkCode;
  /** The network's id of an account the user owns (the one that grants access). */
  accountId: string;
}

export interface ConnectedAccount {
  /** Secret: store it encrypted and never log it. */
  accessToken: string;
  profile: NetworkProfile;
}

/**
 * Everything the services need from a social network. Every method throws NetworkError (never a
 * raw transport error), so callers branch on `kind` and `retryable` only.
 */
export interface NetworkAdapter {
  publish(input: PublishInput): Promise<PublishResult>;
  /**
   * Reconciles an UNKNOWN_OUTCOME on a network that keeps keys (publishingTraits `keys: 'window'`):
   * the post published under this key within the window, or null if there is none. On a network
   * without keys it throws NetworkError REJECTED with upstreamCode NOT_SUPPORTED (check the traits
   * first; this is a guard).
   */
  lookupPublished(input: LookupPublishedInput): Promise<PublishResult | null>;
  /**
   * The account's posts published at or after `since`, newest first, paged by `nextCursor`: how an
   * unknown outcome is reconciled where the network keeps no keys (match by `fingerprint`).
   */
  recentPosts(input: RecentPostsInput): Promise<RecentPostsResult>;
  searchProfiles(input: SearchProfilesInput): Promise<SearchProfilesResult>;
  profileInfo(input: ProfileInfoInput): Promise<NetworkProfile>;
  dailyMetrics(input: MetricsInput): Promise<DailyMetricsResult>;
  postMetrics(input: PostMetricsInput): Promise<PostMetricsResult>;
  /**
   * The network's consent step: an access token for an own account (OAuth on real networks).
   * Optional so adapters and test doubles without a connect flow still satisfy the interface.
   */
  connectAccount?(input: ConnectAccountInput): Promise<ConnectedAccount>;
  /** Own accounts that can be connected, in the network's order (the sandbox's account picker). */
  listConnectableAccounts?(net: NetworkCode): Promise<NetworkProfile[]>;
  /** Releases sockets; call from the service's destroy(). */
  close(): Promise<void>;
}
