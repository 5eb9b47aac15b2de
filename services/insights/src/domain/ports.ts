export type TargetKind = 'profile' | 'competitor';

/** One collected profile or competitor: `profile:<profileId>` or `competitor:<competitorId>`. */
export const targetKey = (kind: TargetKind, id: string): string => `${kind}:${id}`;

/** Short-lived locks shared by every collector replica. */
export interface Locks {
  /** A token when the lock was free (and is now held for ttlMs), null when someone else holds it. */
  tryAcquire(name: string, ttlMs: number): Promise<string | null>;
  /** Releases only if still held with this token (it may have expired and moved on). */
  release(name: string, token: string): Promise<void>;
}

export interface DayValues {
  /** YYYY-MM-DD */
  date: string;
  values: Record<string, number>;
}

export interface StoredPost {
  id: string;
  type: string;
  format: string;
  caption: string;
  url: string;
  picture: string | null;
  publishedAt: string;
  /** Metric code → value, as last collected. */
  v: Record<string, number>;
}

/** A collected profile or competitor as stored (`_id` is its targetKey). */
export interface StoredTarget {
  _id: string;
  ws: string;
  kind: TargetKind;
  targetId: string;
  net: string;
  accountId: string;
  createdAt: Date;
  lastCollectedAt: Date | null;
  lastError: string | null;
}

/** Daily metrics of a target (data/daily-insights.repository.ts). */
export interface DailyInsightsStore {
  putDays(ws: string, target: string, days: DayValues[]): Promise<void>;
  /** Days are day numbers since the epoch, inclusive. */
  readRange(ws: string, target: string, since: number, until: number): Promise<{ day: number; values: Record<string, number> }[]>;
}

/** Posts of a target with their metrics (data/post-insights.repository.ts). */
export interface PostInsightsStore {
  putPosts(ws: string, target: string, posts: StoredPost[]): Promise<void>;
  readRange(ws: string, target: string, since: number, until: number): Promise<StoredPost[]>;
}

/** The targets collection runs for (data/target.repository.ts). */
export interface TargetStore {
  all(batchSize?: number): AsyncIterable<StoredTarget>;
  recordOutcome(kind: TargetKind, id: string, error: string | null): Promise<void>;
}

/** A profile or competitor as insights needs it: which network account to read. */
export interface ResolvedTarget {
  id: string;
  net: string;
  networkAccountId: string;
}

export interface ProfileDirectory {
  /** An own profile of the workspace, or null when the workspace has none with that id. */
  getProfile(workspaceId: string, profileId: string): Promise<ResolvedTarget | null>;
  /** A competitor of the workspace, or null. */
  getCompetitor(workspaceId: string, competitorId: string): Promise<ResolvedTarget | null>;
  /** The access token of an own profile (collection reads every served metric with it). */
  getAccessToken(workspaceId: string, profileId: string): Promise<string | null>;
  close(): void;
}

/** Posts published through us, as far as the label filter of post insights needs them. */
export interface PublishedPostsDirectory {
  /** Network post ids of the profile's posts that carry any of the labels. */
  networkPostIdsWithLabels(workspaceId: string, profileId: string, labelIds: string[]): Promise<Set<string>>;
  close(): void;
}
