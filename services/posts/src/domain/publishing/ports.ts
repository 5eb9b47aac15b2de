import type { PublishRequested } from '@social/contracts';
import type { PostRecord } from '../posts/post.types';

/** A SCHEDULED revision waiting for its due time. */
export interface DueRevision {
  workspaceId: string;
  postId: string;
  revision: number;
  dueAt: Date;
}

/**
 * The posts publishing works on, as the database finds them fast (data/post.repository.ts).
 * Every change is a compare-and-set on the post itself, so publishing and edits never both win.
 */
export interface PublishingPosts {
  /** Revisions WAITING to be dispatched at or before `horizon`, however long ago they were due. */
  waitingUntil(horizon: Date, now: Date): Promise<DueRevision[]>;
  /**
   * Claims a due revision: from then on the post is DISPATCHED and cannot be changed. Null when it
   * changed since it was listed (a new revision, unscheduled, deleted) or another replica claimed it.
   */
  claimForDispatch(due: DueRevision, checkAt: Date): Promise<PostRecord | null>;
  /** claimForDispatch of each (listed by the last `waitingUntil`), as few database commands as may be. */
  claimManyForDispatch(due: DueRevision[], checkAt: Date): Promise<(PostRecord | null)[]>;
  /** DISPATCHED posts whose watchdog check is due, however old. */
  dueForCheck(now: Date): Promise<PostRecord[]>;
  /**
   * Applies `change` to the post under compare-and-set, again to a fresh read when another write came
   * first. `change` returns null to leave the post as it is. Null when the post is gone.
   */
  modify(workspaceId: string, postId: string, change: (post: PostRecord) => PostRecord | null): Promise<PostRecord | null>;
}

/** Where publish jobs go: confirmed publishes on the broker (a stub in unit tests). */
export interface JobQueue {
  publishJob(job: PublishRequested, workspaceId: string): Promise<void>;
  /** The watchdog's question to the publisher: settle this profile from its ledger and the network. */
  reconcileJob(job: PublishRequested, workspaceId: string, round: number): Promise<void>;
}
