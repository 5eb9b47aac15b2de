/** What the sandbox's use cases need from storage; data/ implements it, network-sandbox-service.ts wires it. */

export interface PublishedMedia {
  mimeType: string;
  url?: string;
  sha256?: string;
  sizeBytes?: number;
  durationSec?: number;
  width?: number;
  height?: number;
}

export interface PublishedLink {
  link: string;
  title?: string | null;
  description?: string | null;
  imageUrl?: string | null;
}

/** A post published through the sandbox. */
export interface PublishedPost {
  /** The network post id. */
  id: string;
  net: string;
  accountId: string;
  /**
   * The Idempotency-Key header of the request that created the post, kept for test accounting
   * (the admin API counts posts per client key); never shown to the network's clients.
   */
  clientKey: string;
  /** SHA-256 of the canonical content, signed URLs included: the same key with other content is refused. */
  fingerprint: string;
  type: string;
  caption: string | null;
  firstComment: string | null;
  media: PublishedMedia[];
  links: PublishedLink[];
  /** The network object exactly as received; kept as JSON because its keys are the caller's. */
  settingsJson: string | null;
  publishedAt: Date;
}

/** The fields of a post the network's listing shows (media reduced to their mimeType). */
export type ListedPostRecord = Pick<PublishedPost, 'id' | 'publishedAt' | 'type' | 'caption' | 'firstComment' | 'media' | 'links'>;

/** A position in an account's listing (newest first): the last post of the previous page. */
export interface ListingPosition {
  publishedAtMs: number;
  id: string;
}

/** The posts published through the sandbox (data/published-post.repository.ts). */
export interface PublishedPostStore {
  /**
   * Stores the post. With `heldKey` (networks that keep keys) the post holds that key, of which one
   * post at a time can hold each: false, and nothing stored, when another post holds it.
   */
  insert(post: PublishedPost, heldKey?: string): Promise<boolean>;
  findByHeldKey(heldKey: string): Promise<PublishedPost | null>;
  /** Compare-and-set: the post stops holding the key if it still does; true for the one caller that did it. */
  releaseKey(id: string, heldKey: string): Promise<boolean>;
  /** The account's posts published in [sinceMs, untilMs], after `before` when given, newest first (ties by id), at most `limit`. */
  listRecent(
    net: string,
    accountId: string,
    q: { sinceMs: number; untilMs: number; before?: ListingPosition; limit: number },
  ): Promise<ListedPostRecord[]>;
  listByAccount(net: string, accountId: string): Promise<PublishedPost[]>;
  /** How many posts were published (admin). */
  count(): Promise<number>;
  /** For the admin listing; every filter optional. */
  list(filter: { net?: string; accountId?: string; clientKeyPrefix?: string }): Promise<PublishedPost[]>;
}

/** A publish request answered with an earlier post (networks that keep keys). */
export interface PublishReplay {
  net: string;
  accountId: string;
  clientKey: string;
  networkPostId: string;
}

/** The replays of publish requests (data/publish-attempt.repository.ts). */
export interface PublishAttemptStore {
  recordReplay(attempt: PublishReplay): Promise<void>;
  /** Replays per network post id; both filters optional. */
  replaysByPost(filter: { net?: string; accountId?: string }): Promise<Map<string, number>>;
}

/** An access token as stored: only its hash, never the token. */
export interface IssuedToken {
  net: string;
  accountId: string;
  revokedAt: Date | null;
}

/** The access tokens issued (data/token.repository.ts). */
export interface TokenStore {
  insert(net: string, accountId: string, tokenHash: string): Promise<void>;
  findByHash(tokenHash: string): Promise<IssuedToken | null>;
  /** Revokes every live token of the account; returns how many. */
  revokeAll(net: string, accountId: string): Promise<number>;
}
