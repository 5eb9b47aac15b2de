import {
  profileAuthRevoked,
  PUBLISH_RETRY_QUEUE,
  publishCompleted,
  publishJobEventId,
  publishJobKey,
  publishRequested,
  publishResultEventId,
  type PublishRequested,
} from '@social/contracts';
import { AppError } from '@social/errors';
import { isPermanentError, type Broker, type ConsumeContext, type EventEnvelope } from '@social/events';
import { errorFields } from '@social/logger';
import type { PublishJob } from '../domain/publish-job.use-case';
import type { JobOutbox } from '../domain/ports';
import { jobLog as log } from '../logger';

/** Results, delayed retries and revoked-token notices, published with broker confirms. */
export function brokerOutbox(broker: Broker): JobOutbox {
  return {
    async result(r, meta) {
      await broker.publish(publishCompleted, r, { ...meta, id: publishResultEventId(r, r.status) });
    },
    async retryLater(job, delayMs, meta) {
      // Through the default exchange straight into the delay queue; on expiry it dead-letters back.
      await broker.publish(publishRequested, job, {
        ...meta,
        id: publishJobEventId(job, job.attempt ?? 1),
        exchange: '',
        routingKey: PUBLISH_RETRY_QUEUE,
        expirationMs: delayMs,
      });
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
          key: publishJobKey(env.payload),
          deliveryCount: ctx.deliveryCount,
          ...errorFields(err),
        });
        await useCase.poisoned(env.payload, err, meta).catch((e) => log.error('could not report the poisoned job', errorFields(e)));
      }
      throw err;
    }
  };
