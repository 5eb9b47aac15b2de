import { createLogger, errorFields, type Logger } from '@social/logger';
import type { PublishingHooks } from '../posts/posts.use-cases';
import type { Dispatcher } from './dispatcher';

const log: Logger = createLogger('posts:dispatch');

export function publishingHooks(dispatcher: Dispatcher): PublishingHooks {
  return {
    dispatchNow(post) {
      // Not awaited: the response does not wait for the broker; the next tick is the safety net.
      void dispatcher.dispatchNow(post).catch((err) => log.warn('immediate dispatch failed; the next tick sends it', errorFields(err)));
    },
  };
}
