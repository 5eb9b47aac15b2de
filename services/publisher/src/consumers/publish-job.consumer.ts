import {
  profileAuthRevoked,
  PUBLISH_DELAY_QUEUES,
  PUBLISH_JOBS_QUEUE,
  publishCompleted,
  publishJobEventId,
  publishJobName,
  publishRequested,
  publishResultEventId,
  reconcileJobEventId,
  type PublishRequested,
} from '@social/contracts';
import { AppError } from '@social/errors';
import { isPermanentError, type Broker, type ConsumeContext, type EventEnvelope, type InvalidMessage } from '@social/events';
import { errorFields } from '@social/logger';
import { isNetworkCode } from '@social/networks';
import type { JobRef, PublishJob } from '../domain/publish-job.use-case';
import type { JobOutbox } from '../domain/ports';
import { jobLog as log } from '../logger';

/**
 * The delay queue a job waiting `ms` goes through: the longest delay not past its time (it comes
 * back and goes round again if it must wait longer), or straight to the jobs queue when due.
 */
export function delayQueueFor(ms: number): string {
  if (ms <= 0) return PUBLISH_JOBS_QUEUE;
  const fits = PUBLISH_DELAY_QUEUES.filter((q) => q.delayMs <= ms);
  return (fits.at(-1) ?? PUBLISH_DELAY_QUEUES[0]).name;
}

/** Results, delayed jobs and revoked-token notices, published with broker confirms. */
export function brokerOutbox(broker: Broker, now: () => number = Date.now): JobOutbox {
  return {
    async result(r, meta) {
      await broker.publish(publishCompleted, r, { ...meta, id: publishResultEventId(r, r.status) });
    },
    async later(job, meta) {
      const wait = job.notBefore ? Date.parse(job.notBefore) - now() : 0;
      const id = job.mode === 'reconcile' ? reconcileJobEventId(job, job.attempt ?? 1) : publishJobEventId(job, job.attempt ?? 1);
      // Through the default exchange straight into a queue; a delay queue dead-letters it back.
      await broker.publish(publishRequested, job, { ...meta, id, exchange: '', routingKey: delayQueueFor(wait) });
    },
    async authRevoked(profileId, net, reason, meta) {
      try {
        await broker.publish(profileAuthRevoked, { profileId, net, reason }, meta);
      } catch (err) {
        // Nobody listening (competitors not deployed) must not keep the profile's job from failing.
        if (err instanceof AppError && err.code === 'EVENT_UNROUTABLE') log.warn('profile.auth.revoked has no consumer', { profileId });
        else throw err;
      }
    },
  };
}

/**
 * Runs a job. When it throws on the last delivery (or permanently), the broker dead-letters it;
 * before that the profile is settled as FAILED so it never stays PENDING.
 */
export const publishJobHandler =
  (useCase: PublishJob) =>
  async (env: EventEnvelope<PublishRequested>, ctx: ConsumeContext): Promise<void> => {
    const meta = { workspaceId: env.workspaceId, correlationId: env.correlationId };
    try {
      await useCase.handle(env.payload, meta);
    } catch (err) {
      if (ctx.isLastAttempt || isPermanentError(err)) {
        log.error('publish job poisoned; failing the profile and dead-lettering the job', {
          job: publishJobName(env.payload),
          deliveryCount: ctx.deliveryCount,
          ...errorFields(err),
        });
        await useCase.poisoned(env.payload, err, meta).catch((e) => log.error('could not report the poisoned job', errorFields(e)));
      }
      throw err;
    }
  };

/**
 * A message of the jobs queue that is not a valid job. When it still says it is a
 * `post.publish.requested` and names post, profile, revision and workspace, that profile is failed
 * at once (INVALID_PUBLISH_JOB); the broker then dead-letters the message. Bytes that name nothing
 * are only dead-lettered: the posts watchdog settles their profile. When failing the profile does
 * not work out (ledger or broker down), this throws and the message is redelivered.
 */
export const invalidJobHandler =
  (useCase: PublishJob) =>
  async (m: InvalidMessage, ctx: ConsumeContext): Promise<void> => {
    const named = namedJob(m.data);
    if (!named) {
      log.error('unreadable publish job dead-lettered; the posts watchdog will settle its profile', {
        messageId: m.messageId,
        reason: m.reason,
        deliveryCount: ctx.deliveryCount,
      });
      return;
    }
    const problems = m.details.map((d) => `${d.path || '/'} ${d.message}`).join('; ');
    await useCase.invalid(named.job, problems ? `${m.reason}: ${problems}` : m.reason, named.meta);
  };

const isId = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** The job key and workspace an invalid job message still names, or null. */
export function namedJob(data: unknown): { job: JobRef; meta: { workspaceId: string; correlationId: string } } | null {
  if (typeof data !== 'object' || data === null) return null;
  const env = data as Record<string, unknown>;
  // Only a message that says it is a job: a stray event of another type must not fail a profile.
  if (env['type'] !== publishRequested.type || !isId(env['workspaceId'])) return null;
  const p = env['payload'];
  if (typeof p !== 'object' || p === null) return null;
  const { postId, profileId, revision, net } = p as Record<string, unknown>;
  if (!isId(postId) || !isId(profileId) || !Number.isInteger(revision) || (revision as number) < 0) return null;
  return {
    job: { postId, profileId, revision: revision as number, net: isNetworkCode(net) ? net : 'unknown' },
    meta: {
      workspaceId: env['workspaceId'],
      correlationId: isId(env['correlationId']) ? env['correlationId'] : `${postId}:${profileId}:${revision}`,
    },
  };
}
