import type { PublishCompleted } from '@social/contracts';
import { AppError, ErrorCodes } from '@social/errors';
import { createLogger, type Logger } from '@social/logger';
import type { PostRepository } from '../../data/post.repository';
import { taskId, type PublishTaskRepository } from '../../data/publish-task.repository';
import { applyResult, hasPending } from './apply-result';

const log: Logger = createLogger('posts:results');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Records a publish result on its post. Idempotent by (post, profile, revision): a repeat changes
 * nothing. Results of one post's profiles arrive together: in this process they are applied one at
 * a time per post, and every write is read back, because FerretDB (no transactions) can let two
 * version-conditional replaces of one document both succeed, losing one of them.
 */
export class ApplyPublishResult {
  private readonly perPost = new Map<string, Promise<void>>();

  constructor(
    private readonly posts: PostRepository,
    private readonly tasks: PublishTaskRepository,
    private readonly now: () => Date = () => new Date(),
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
    for (let attempt = 1; attempt <= 8; attempt++) {
      const post = await this.posts.get(workspaceId, r.postId);
      if (!post) return; // deleted since: nothing to show the result on
      const next = applyResult(post, r, this.now());
      if (!next) {
        if (!hasPending(post, r.revision)) await this.tasks.markDone(taskId(r.postId, r.revision));
        return;
      }
      if (await this.posts.replace(next, post.version)) {
        const stored = await this.posts.get(workspaceId, r.postId);
        if (stored && applyResult(stored, r, this.now()) !== null) {
          log.warn('a concurrent write lost the publish result; applying it again', { postId: r.postId, profileId: r.profileId });
          continue;
        }
        log.info('publish result applied', { postId: r.postId, profileId: r.profileId, status: r.status, stage: next.stage });
        if (stored && !hasPending(stored, r.revision)) await this.tasks.markDone(taskId(r.postId, r.revision));
        return;
      }
      await sleep(Math.random() * 20 * attempt);
    }
    throw new AppError(ErrorCodes.CONFLICT, 409, `Post ${r.postId} kept changing while a publish result was applied.`);
  }
}
