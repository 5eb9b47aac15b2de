import { runWithContext } from '@social/logger';
import type { PublishTask } from '../../data/publish-task.repository';

/**
 * Runs work on a publish task (dispatch, re-dispatch after a lease, the watchdog's reconcile) as
 * part of the request that planned it: its log lines carry that request id, and so does the
 * correlationId of every job it publishes, which the publisher and its results keep.
 */
export function inTaskContext<T>(task: Pick<PublishTask, 'workspaceId' | 'requestId'>, fn: () => T): T {
  // Tasks planned before request ids were stored have none: their jobs fall back to their own ids.
  const ids = task.requestId ? { requestId: task.requestId, correlationId: task.requestId } : {};
  return runWithContext({ workspaceId: task.workspaceId, ...ids }, fn);
}
