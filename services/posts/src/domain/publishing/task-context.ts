import { inStoredTrace } from '@social/events';
import { runWithContext } from '@social/logger';

/** The plan of a revision as the work on it needs it: whose it is and which request planned it. */
export interface PlanOrigin {
  workspaceId: string;
  requestId: string | null;
  traceparent?: string | null;
}

/** The request that planned a post's current revision, as stored with its dispatch state. */
export function planOrigin(post: { dispatch: { requestId: string | null; traceparent?: string | null } | null }) {
  return { requestId: post.dispatch?.requestId ?? null, traceparent: post.dispatch?.traceparent ?? null };
}

/**
 * Runs work on a post being published (dispatch, the watchdog's reconcile) as part of the request
 * that planned its revision: its log lines carry that request id, and so does the correlationId of
 * every job it publishes, which the publisher and its results keep. Its span's parent is that
 * request's span (the stored traceparent), not a link: a dispatch minutes or days later still lands
 * in the schedule request's trace, so one trace shows the request, the wait (the gap before this
 * span), the jobs, the network calls and the results.
 */
export function inPlanContext<T>(
  plan: PlanOrigin,
  spanName: string,
  attributes: Record<string, string | number>,
  fn: () => Promise<T>,
): Promise<T> {
  // Revisions planned without a request id: their jobs fall back to their own envelope ids.
  const ids = plan.requestId ? { requestId: plan.requestId, correlationId: plan.requestId } : {};
  const withRequest = plan.requestId ? { ...attributes, 'request.id': plan.requestId } : attributes;
  return runWithContext({ workspaceId: plan.workspaceId, ...ids }, () => inStoredTrace(plan.traceparent, spanName, withRequest, fn));
}
