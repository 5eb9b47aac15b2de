import type { PublishCompleted } from '@social/contracts';
import type { PostRecord, Stage } from '../posts/post.types';

/** Shown on a PENDING profile whose publish was sent but not confirmed either way (yet). */
export const OUTCOME_UNKNOWN = 'PUBLISH_OUTCOME_UNKNOWN';

/**
 * A publish result applied to a post, or null when it changes nothing (a repeat, or a result of a
 * revision the post has moved past). Rules:
 * - PUBLISHED always wins over anything but PUBLISHED: the network has the post, so the profile
 *   shows it.
 * - FAILED and CANCELLED settle only a PENDING entry of the same revision.
 * - UNKNOWN settles nothing: the entry stays PENDING, with the reason shown (OUTCOME_UNKNOWN), until
 *   the publisher learns from the network whether it holds the post.
 * When nothing is PENDING any more, the stage follows: PUBLISHED if every profile published, else
 * PUBLISHED_FAILED; and nothing is left to dispatch or watch.
 */
export function applyResult(post: PostRecord, r: PublishCompleted, now: Date): PostRecord | null {
  const i = post.plan.findIndex((e) => e.profileId === r.profileId);
  if (i < 0) return null;
  const entry = post.plan[i]!;
  if (r.status === 'PUBLISHED') {
    if (entry.status === 'PUBLISHED') return null;
  } else if (entry.status !== 'PENDING' || entry.revision !== r.revision) {
    return null;
  }
  const plan = [...post.plan];
  if (r.status === 'UNKNOWN') {
    const error = { code: OUTCOME_UNKNOWN, message: r.error?.message ?? 'The network has not confirmed the publish yet.' };
    if (entry.error?.code === error.code && entry.error.message === error.message) return null;
    plan[i] = { ...entry, error };
    return { ...post, plan, version: post.version + 1, updatedAt: now };
  }
  plan[i] = {
    ...entry,
    status: r.status,
    networkPostId: r.networkPostId ?? entry.networkPostId ?? null,
    reason: r.status === 'PUBLISHED' ? null : (r.error?.message ?? null),
    error: r.status === 'PUBLISHED' ? null : (r.error ?? null),
  };
  const next: PostRecord = { ...post, plan, version: post.version + 1, updatedAt: now };
  const stage = stageAfterResults(post.stage, plan);
  if (stage !== post.stage) {
    next.stage = stage;
    next.stageHistory = [...post.stageHistory, { at: now, operation: 'publishResult', from: post.stage, to: stage, comment: null }];
  }
  if (!hasPending(next, post.revision)) next.dispatch = null;
  return next;
}

export function stageAfterResults(stage: Stage, plan: PostRecord['plan']): Stage {
  if (plan.length === 0 || plan.some((e) => e.status === 'PENDING')) return stage;
  const all = plan.every((e) => e.status === 'PUBLISHED');
  if (stage === 'SCHEDULED') return all ? 'PUBLISHED' : 'PUBLISHED_FAILED';
  if (stage === 'PUBLISHED_FAILED' && all) return 'PUBLISHED';
  return stage;
}

export const hasPending = (post: PostRecord, revision: number) => post.plan.some((e) => e.status === 'PENDING' && e.revision === revision);
