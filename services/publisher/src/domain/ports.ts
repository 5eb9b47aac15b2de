import type { PublishCompleted, PublishContent, PublishRequested } from '@social/contracts';

/** A post as one profile's network receives it (posts.v1.PostForPublishing, decoded). */
export interface PostContent extends PublishContent {
  postId: string;
  profileId: string;
  revision: number;
  stage: string;
  net: string;
  /** PENDING, PUBLISHED, FAILED, CANCELLED, or '' when the profile has no plan entry. */
  publishStatus: string;
}

/** Only for jobs of dispatchers that did not put the content in the job yet. */
export interface PostSource {
  /** Rejects with an AppError NOT_FOUND when the post (or its profile) is gone. */
  get(workspaceId: string, job: { postId: string; profileId: string; revision: number }): Promise<PostContent>;
}

export interface MediaFile {
  id: string;
  status: string;
  mimeType: string;
  url: string;
  sizeBytes: number | null;
  durationSec: number | null;
  width: number | null;
  height: number | null;
}

export interface MediaSource {
  /** Media of the workspace by id; ids not found are absent. */
  batchGet(workspaceId: string, ids: string[]): Promise<Map<string, MediaFile>>;
}

export interface Credentials {
  net: string;
  accountId: string;
  accessToken: string;
}

export interface CredentialSource {
  get(workspaceId: string, profileId: string): Promise<Credentials>;
  forget(workspaceId: string, profileId: string): void;
}

export interface JobMeta {
  workspaceId: string | null;
  correlationId: string;
}

/** Where outcomes and follow-ups go (the broker in the service, arrays in unit tests). */
export interface JobOutbox {
  result(result: PublishCompleted, meta: JobMeta): Promise<void>;
  /** The job again, not before `job.notBefore`. */
  later(job: PublishRequested, meta: JobMeta): Promise<void>;
  authRevoked(profileId: string, net: string, reason: string, meta: JobMeta): Promise<void>;
}

export type LedgerState = 'CALLING' | 'PUBLISHED' | 'NOT_PUBLISHED';
export type JobError = { code: string; message: string };

/**
 * One (post, profile) in the ledger: every attempt to publish that post on that profile, of every
 * revision, goes through this one entry, and an attempt calls the network only after it is here.
 * - CALLING: an attempt was sent (or is being sent) and may have created the post; nothing calls
 *   the network again for this (post, profile) until the network shows the post, or shows it absent
 *   once the attempt can no longer land (`calledAt` + the network's settle time).
 * - PUBLISHED: the network holds the post.
 * - NOT_PUBLISHED: the latest attempt certainly created nothing (refused, or proven absent). `final`
 *   when given up for `revision` (FAILED reported); else a retry runs from `retryAt`.
 */
export interface LedgerEntry {
  key: string;
  workspaceId: string | null;
  postId: string;
  profileId: string;
  net: string;
  state: LedgerState;
  /** The revision of the latest attempt; a job of an older revision is a stale copy. */
  revision: number;
  /** Identifies the latest attempt: every change of state is conditional on it. */
  attemptId: string;
  /** Network calls for `revision` so far. */
  attempts: number;
  /** The account the latest attempt published as, when it was sent, and what it sent. */
  accountId: string | null;
  calledAt: Date | null;
  fingerprint: string | null;
  /**
   * The idempotency keys the latest attempt sent, when not `key`: an attempt of a release before
   * the ledger (`publish_attempts`) sent `${postId}:${profileId}:${revision}`, one key per revision
   * it tried. Null: `key`.
   */
  idempotencyKeys: string[] | null;
  /**
   * The latest moment a call of the latest attempt may have been sent, when later than `calledAt`
   * (an attempt of an earlier release called again under one attempt; `calledAt` is then its first
   * call). Null: `calledAt`.
   */
  calledUntil: Date | null;
  networkPostId: string | null;
  publishedAt: Date | null;
  error: JobError | null;
  final: boolean;
  retryAt: Date | null;
}

/** What a new attempt (or a settled first entry) records. */
export type AttemptStart = Pick<LedgerEntry, 'key' | 'workspaceId' | 'postId' | 'profileId' | 'net' | 'revision'> &
  ({ state: 'CALLING'; accountId: string; fingerprint: string } | { state: 'NOT_PUBLISHED'; error: JobError; final: true });

export interface Ledger {
  get(key: string): Promise<LedgerEntry | null>;
  /** Records the first attempt of a key; when the key exists already, returns the entry instead. */
  begin(start: AttemptStart): Promise<{ created: boolean; entry: LedgerEntry }>;
  /**
   * After NOT_PUBLISHED, only if `entry` is still the latest: a new attempt, or a revision settled
   * without one. Else null.
   */
  beginAgain(entry: LedgerEntry, start: AttemptStart): Promise<LedgerEntry | null>;
  /**
   * The network holds the post: wins over any state but PUBLISHED. Returns the entry after.
   * `known`, the entry as this job last wrote it, spares the read back when it is still the latest.
   */
  published(key: string, networkPostId: string, publishedAt: Date, known?: LedgerEntry): Promise<LedgerEntry>;
  /** The latest attempt created nothing; only if `entry` is still the latest, else null. */
  notPublished(entry: LedgerEntry, outcome: { error: JobError; final: boolean; retryAt: Date | null }): Promise<LedgerEntry | null>;
  /** Notes why a CALLING attempt is not settled yet (shown to the user). */
  unsettled(entry: LedgerEntry, error: JobError): Promise<void>;
  /**
   * Records that `entry`'s attempt calls the network now (`calledUntil`), only if it is still the
   * latest and CALLING; else null. For an attempt whose recording took long (see PublishJob).
   */
  callingNow(entry: LedgerEntry): Promise<LedgerEntry | null>;
  /**
   * Takes a network post found by content for `key`. False when another key has it: two of our
   * posts with the same text on one account must not both claim the same network post.
   */
  claimNetworkPost(net: string, networkPostId: string, key: string): Promise<boolean>;
  /**
   * The other entries whose latest attempt sent `entry`'s content to its account and is still
   * CALLING: a network post with that content may be theirs.
   */
  callingWithSameContent(entry: LedgerEntry): Promise<LedgerEntry[]>;
}
