import { postFailedEvent, postPublishedEvent, postStageChangedEvent, type PublishCompleted } from '@social/contracts';
import { noEvents, type EventEmitter } from '@social/events';
import { createLogger, type Logger } from '@social/logger';
import type { PostRecord } from '../posts/post.types';
import { applyResult } from './apply-result';
import type { PublishingPosts } from './ports';

const log: Logger = createLogger('posts:results');

/**
 * Records a publish result on its post, under compare-and-set (applied again to a fresh read when
 * another write came first). Idempotent by (post, profile, revision): a repeat changes nothing.
 * Results of one post's profiles arrive together; in this process they are applied one at a time
 * per post, so they do not make each other's compare-and-set fail.
 */
export class ApplyPublishResult {
  private readonly perPost = new Map<string, Promise<void>>();

  constructor(
    private readonly posts: PublishingPosts,
    private readonly now: () => Date = () => new Date(),
    private readonly events: EventEmitter = noEvents,
  ) {}

  execute(workspaceId: string, r: PublishCompleted): Promise<void> {
    const previous = this.perPost.get(r.postId) ?? Promise.resolve();
    const run = previous.then(() => this.apply(workspaceId, r));
    const settled = run.catch(() => undefined);
    this.perPost.set(r.postId, settled);
    void settled.then(() => this.perPost.get(r.postId) === settled && this.perPost.delete(r.postId));
    return run;
  }

  private async apply(workspaceId: string, r: PublishCompleted): Promise<void> {
    let applied = false;
    let before: PostRecord | undefined;
    const after = await this.posts.modify(workspaceId, r.postId, (post) => {
      const next = applyResult(post, r, this.now());
      applied = next !== null;
      before = post;
      return next;
    });
    // A post deleted since has nothing to show the result on.
    if (!after || !applied || !before) return;
    log.info('publish result applied', { postId: r.postId, profileId: r.profileId, status: r.status, stage: after.stage });
    this.emitEvents(workspaceId, r, before, after);
  }

  /** After the write, in the order a webhook receiver should see them: the profile, then the post. */
  private emitEvents(workspaceId: string, r: PublishCompleted, before: PostRecord, after: PostRecord): void {
    const at = after.updatedAt.toISOString();
    const net = after.profileNets[r.profileId] ?? null;
    const postVersion = after.version;
    const entry = after.plan.find((e) => e.profileId === r.profileId);
    if (r.status === 'PUBLISHED' && before.plan.find((e) => e.profileId === r.profileId)?.status !== 'PUBLISHED') {
      const networkPostId = entry?.networkPostId ?? null;
      this.events.emit(
        postPublishedEvent,
        { postId: r.postId, profileId: r.profileId, net, networkPostId, publishedAt: r.publishedAt ?? at, postVersion },
        workspaceId,
      );
    } else if (r.status === 'FAILED' && entry?.status === 'FAILED') {
      const error = entry.error ?? r.error ?? { code: 'PUBLISH_FAILED', message: entry.reason ?? 'Publishing failed.' };
      this.events.emit(postFailedEvent, { postId: r.postId, profileId: r.profileId, net, error, failedAt: at, postVersion }, workspaceId);
    }
    if (after.stage !== before.stage) {
      this.events.emit(
        postStageChangedEvent,
        { postId: r.postId, from: before.stage, to: after.stage, operation: 'publishResult', at, postVersion },
        workspaceId,
      );
    }
  }
}
