import { createLogger, errorFields, getContext, type Logger } from '@social/logger';
import type { PublishTaskRepository } from '../../data/publish-task.repository';
import type { PublishingHooks } from '../posts/posts.use-cases';
import type { Dispatcher } from './dispatcher';

const log: Logger = createLogger('posts:dispatch');

export function publishingHooks(tasks: PublishTaskRepository, dispatcher: Dispatcher): PublishingHooks {
  return {
    // The request planning this revision (schedule, publishNow, retry, PUT) travels with its jobs.
    planned: (post) => tasks.plan(post.workspaceId, post.id, post.revision, post.publishAt ?? new Date(), getContext().requestId ?? null),
    async saved(post, now) {
      // Best effort: a leftover task of an older revision is dropped at dispatch anyway.
      await tasks.cancelOlder(post.id, post.revision).catch((err) => log.warn('could not cancel older tasks', errorFields(err)));
      if (now) {
        // Not awaited: the response does not wait for the broker; the next tick is the safety net.
        void dispatcher.dispatchNow(post.id, post.revision).catch((err) => log.warn('immediate dispatch failed', errorFields(err)));
      }
    },
  };
}
