import {
  collectionRequested,
  collectionTargetRemoved,
  competitorCollectedEvent,
  type CollectionRequested,
  type TargetRemoved,
} from '@social/contracts';
import { noEvents, PermanentError, type EventEmitter, type EventEnvelope } from '@social/events';
import type { Logger } from '@social/logger';
import type { DailyInsightsRepository } from '../data/daily-insights.repository';
import { targetKey } from '../domain/ports';
import type { PostInsightsRepository } from '../data/post-insights.repository';
import type { TargetRepository } from '../data/target.repository';
import type { CollectTarget } from '../domain/collect-target.use-case';
import { parseDay } from '../domain/dates';

export const COLLECTION_EVENTS = [collectionRequested, collectionTargetRemoved] as const;

export interface CollectionConsumerDeps {
  collect: CollectTarget;
  targets: TargetRepository;
  daily: DailyInsightsRepository;
  posts: PostInsightsRepository;
  log: Logger;
  /** competitor.collected for webhooks, after the data is stored; never fails the job. */
  events?: EventEmitter;
}

/** One queue, two messages: collect a target's range, or forget a target and its data. */
export function collectionConsumer(deps: CollectionConsumerDeps) {
  return async (envelope: EventEnvelope<CollectionRequested> | EventEnvelope<TargetRemoved>): Promise<void> => {
    const ws = envelope.workspaceId;
    if (!ws) throw new PermanentError(`${envelope.type} without a workspace.`);
    if (envelope.type === collectionTargetRemoved.type) {
      const { target } = (envelope as EventEnvelope<TargetRemoved>).payload;
      const key = targetKey(target.kind, target.id);
      const known = await deps.targets.get(target.kind, target.id);
      if (known && known.ws !== ws) throw new PermanentError(`Target ${key} belongs to another workspace.`);
      await deps.targets.forget(target.kind, target.id);
      const [days, posts] = await Promise.all([deps.daily.deleteTarget(key), deps.posts.deleteTarget(key)]);
      deps.log.info('target removed', { target: key, dailyBuckets: days, postBuckets: posts });
      return;
    }
    const job = (envelope as EventEnvelope<CollectionRequested>).payload;
    const { target } = job;
    const since = parseDay(job.since);
    const until = parseDay(job.until);
    if (since === undefined || until === undefined) throw new PermanentError(`Bad range ${job.since}..${job.until}.`);
    if (job.reason === 'refresh') {
      // A refresh enqueued before the target was removed must not bring it back.
      const known = await deps.targets.get(target.kind, target.id);
      if (!known) {
        deps.log.info('refresh of a removed target skipped', { target: targetKey(target.kind, target.id) });
        return;
      }
    } else {
      await deps.targets.remember(ws, { kind: target.kind, id: target.id, net: target.net, accountId: target.networkAccountId });
    }
    const outcome = await deps.collect.run({
      ws,
      kind: target.kind,
      id: target.id,
      net: target.net,
      accountId: target.networkAccountId,
      reason: job.reason,
      since,
      until,
    });
    if (outcome.status === 'collected' && target.kind === 'competitor') {
      const payload = {
        competitorId: target.id,
        net: target.net,
        since: job.since,
        until: job.until,
        reason: job.reason,
        collectedAt: new Date().toISOString(),
      };
      (deps.events ?? noEvents).emit(competitorCollectedEvent, payload, ws);
    }
    if (outcome.status === 'skipped')
      deps.log.info('collection skipped', { target: targetKey(target.kind, target.id), reason: job.reason, why: outcome.why });
  };
}
