import { AppError, ErrorCodes } from '@social/errors';
import type { Stage } from './post.types';

export const STAGE_OPERATIONS = [
  'submitTeamReview',
  'approveTeam',
  'rejectTeam',
  'submitClientReview',
  'approveClient',
  'rejectClient',
  'schedule',
  'publishNow',
  'unschedule',
  'archive',
  'restore',
  'retry',
] as const;
export type StageOperation = (typeof STAGE_OPERATIONS)[number];

/**
 * The workflow (the posts README has it as a table). Reviews are optional: a DRAFT may be scheduled
 * directly, or go through team review, client review or both. A rejected post goes back to the
 * review that rejected it (or to the team's). PUBLISHED_FAILED may be scheduled or published again:
 * only its profiles that did not publish are planned. SCHEDULED must be unscheduled before anything
 * but publishNow. Every stage but SCHEDULED can be archived; restore returns to the stage it left.
 */
export const TRANSITIONS: Record<StageOperation, { from: readonly Stage[]; to: Stage | 'PREVIOUS' }> = {
  submitTeamReview: { from: ['IDEA', 'DRAFT', 'TEAM_REVISION', 'CLIENT_REVISION'], to: 'TEAM_REVIEW' },
  approveTeam: { from: ['TEAM_REVIEW'], to: 'TEAM_APPROVED' },
  rejectTeam: { from: ['TEAM_REVIEW'], to: 'TEAM_REVISION' },
  submitClientReview: { from: ['IDEA', 'DRAFT', 'TEAM_APPROVED', 'CLIENT_REVISION'], to: 'CLIENT_REVIEW' },
  approveClient: { from: ['CLIENT_REVIEW'], to: 'CLIENT_APPROVED' },
  rejectClient: { from: ['CLIENT_REVIEW'], to: 'CLIENT_REVISION' },
  schedule: { from: ['DRAFT', 'TEAM_APPROVED', 'CLIENT_APPROVED', 'PUBLISHED_FAILED'], to: 'SCHEDULED' },
  publishNow: { from: ['IDEA', 'DRAFT', 'TEAM_APPROVED', 'CLIENT_APPROVED', 'PUBLISHED_FAILED', 'SCHEDULED'], to: 'SCHEDULED' },
  unschedule: { from: ['SCHEDULED'], to: 'DRAFT' },
  archive: {
    from: [
      'IDEA',
      'DRAFT',
      'TEAM_REVIEW',
      'TEAM_REVISION',
      'TEAM_APPROVED',
      'CLIENT_REVIEW',
      'CLIENT_REVISION',
      'CLIENT_APPROVED',
      'PUBLISHED',
      'PUBLISHED_FAILED',
    ],
    to: 'ARCHIVE',
  },
  restore: { from: ['ARCHIVE'], to: 'PREVIOUS' },
  // Publishes again, at once, only the profiles of a PUBLISHED_FAILED post that did not publish.
  retry: { from: ['PUBLISHED_FAILED'], to: 'SCHEDULED' },
};

export const isStageOperation = (v: string): v is StageOperation => (STAGE_OPERATIONS as readonly string[]).includes(v);

/**
 * A post is being published once it is SCHEDULED and due, or dispatched: its jobs may be on their
 * way to the networks, so it can no longer be changed, unscheduled or deleted. (A change that
 * passed this check just before the due time still loses: the dispatcher claims the post with a
 * compare-and-set, so the change's own compare-and-set fails.)
 */
export function isBeingPublished(post: { stage: Stage; publishAt: Date | null; dispatch?: { state: string } | null }, now: Date): boolean {
  if (post.stage !== 'SCHEDULED') return false;
  return post.dispatch?.state === 'DISPATCHED' || (post.publishAt !== null && post.publishAt.getTime() <= now.getTime());
}

export const protectedStage = (what: string) =>
  new AppError(ErrorCodes.PROTECTED_STAGE, 409, `The post is being published; ${what} is not possible until publishing ends.`);

/** The stage an operation leads to from the post's stage, or the 409 that explains why not. */
export function nextStage(
  op: StageOperation,
  post: { stage: Stage; publishAt: Date | null; archivedFrom: Stage | null },
  now: Date,
): Stage {
  const t = TRANSITIONS[op];
  if (!t.from.includes(post.stage)) {
    throw new AppError(ErrorCodes.INVALID_TRANSITION, 409, `${op} is not allowed from ${post.stage} (allowed from ${t.from.join(', ')}).`);
  }
  if (isBeingPublished(post, now)) throw protectedStage(op);
  if (t.to !== 'PREVIOUS') return t.to;
  return post.archivedFrom ?? (post.publishAt ? 'DRAFT' : 'IDEA');
}
