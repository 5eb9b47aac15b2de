import {
  domainEventsTopology,
  PUBLISH_RESULTS_QUEUE,
  PUBLISHING_EXCHANGE,
  publishCompleted,
  publishJobEventId,
  publishRequested,
  reconcileJobEventId,
  type PublishCompleted,
} from '@social/contracts';
import { PermanentError, type Broker, type EventEnvelope, type Topology } from '@social/events';
import type { ApplyPublishResult } from '../domain/publishing/apply-result.use-case';
import type { JobQueue } from '../domain/publishing/ports';

/**
 * Posts' side of publishing on the broker: the results queue it consumes. The jobs queue belongs
 * to the publisher (it declares it with its delivery limit); until a worker has declared it, a
 * dispatch is refused as unroutable and retried after the lease.
 */
export const postsTopology: Topology = {
  exchanges: [{ name: PUBLISHING_EXCHANGE, type: 'topic' }, ...domainEventsTopology().exchanges],
  queues: [
    { name: PUBLISH_RESULTS_QUEUE, bindings: [{ exchange: PUBLISHING_EXCHANGE, routingKey: publishCompleted.type }] },
    ...domainEventsTopology().queues,
  ],
};

export function brokerJobQueue(broker: Broker): JobQueue {
  return {
    async publishJob(job, workspaceId) {
      await broker.publish(publishRequested, job, { workspaceId, id: publishJobEventId(job) });
    },
    async reconcileJob(job, workspaceId, round) {
      await broker.publish(publishRequested, { ...job, mode: 'reconcile' }, { workspaceId, id: reconcileJobEventId(job, round) });
    },
  };
}

export const publishResultsHandler = (apply: ApplyPublishResult) => async (env: EventEnvelope<PublishCompleted>) => {
  if (!env.workspaceId) throw new PermanentError('A publish result without a workspace cannot be applied.');
  await apply.execute(env.workspaceId, env.payload);
};
