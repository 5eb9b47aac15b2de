import type { Delivery } from './ports';

/**
 * Post events of one endpoint go out in the order the post changed: by the post's version, and
 * within one change the profile's result before the stage it led to.
 */
export function orderOf(
  endpointId: string,
  eventType: string,
  data: Record<string, unknown>,
): { orderKey: string | null; orderSeq: number } {
  const postId = data['postId'];
  if (!eventType.startsWith('post.') || typeof postId !== 'string') return { orderKey: null, orderSeq: 0 };
  const version = typeof data['postVersion'] === 'number' ? data['postVersion'] : 0;
  return { orderKey: `${endpointId}:${postId}`, orderSeq: version * 2 + (eventType === 'post.stage_changed' ? 1 : 0) };
}

/** True when `a` must be delivered before `b` (same order key). */
export const comesBefore = (a: Delivery, b: Delivery): boolean =>
  a.orderSeq < b.orderSeq ||
  (a.orderSeq === b.orderSeq &&
    (a.occurredAt.getTime() < b.occurredAt.getTime() || (a.occurredAt.getTime() === b.occurredAt.getTime() && a.id < b.id)));
