import type { PublishCompleted } from '@social/contracts';
import { createLogger, errorFields, type Logger } from '@social/logger';
import type { PostRepository } from '../../data/post.repository';
import type { PublishTask, PublishTaskRepository } from '../../data/publish-task.repository';
import type { ApplyPublishResult } from './apply-result.use-case';
import { minutesBetween } from './due-minute';
import type { JobQueue } from './publishing.ports';
import { inTaskContext } from './task-context';

const log: Logger = createLogger('posts:watchdog');

export interface WatchdogOptions {
  tickMs: number;
  /** Between reconcile rounds (the first comes this long after dispatch). */
  timeoutMs: number;
  /** Reconcile rounds before posts gives up on its own and fails what is still PENDING. */
  maxRounds: number;
  lookbackMinutes: number;
}

/**
 * Nothing stays PENDING forever. A dispatched revision with profiles still PENDING after the
 * timeout gets reconcile jobs: the publisher answers from its ledger and the network (published →
 * PUBLISHED, else FAILED) without publishing late. If even that brings no answer (no worker
 * running), the profiles are FAILED here; a late PUBLISHED still wins when it comes.
 */
export class Watchdog {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private firstRun = true;
  private stopped = false;

  constructor(
    private readonly tasks: PublishTaskRepository,
    private readonly posts: PostRepository,
    private readonly jobs: JobQueue,
    private readonly results: ApplyPublishResult,
    private readonly opts: WatchdogOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.opts.tickMs);
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  tick(): Promise<void> {
    if (this.running || this.stopped) return this.running ?? Promise.resolve();
    const now = this.now();
    const back = this.firstRun ? this.opts.lookbackMinutes * 60_000 : 180_000;
    this.firstRun = false;
    const task = this.scan(minutesBetween(now.getTime() - back, now), now)
      .catch((err) => {
        log.warn('watchdog tick failed', errorFields(err));
      })
      .finally(() => {
        this.running = undefined;
      });
    this.running = task;
    return task;
  }

  private async scan(buckets: string[], now: Date): Promise<void> {
    for (const minute of buckets) {
      if (this.stopped) return;
      for (const task of await this.tasks.dueForCheck(minute, now)) {
        await inTaskContext(task, () =>
          this.check(task, now).catch((err) => log.warn('watchdog check failed', { taskId: task.id, ...errorFields(err) })),
        );
      }
    }
  }

  private async check(task: PublishTask, now: Date): Promise<void> {
    const post = await this.posts.get(task.workspaceId, task.postId);
    const pending = post?.plan.filter((e) => e.status === 'PENDING' && e.revision === task.revision) ?? [];
    if (!post || pending.length === 0) return this.tasks.markDone(task.id);
    const round = task.reconcileRounds + 1;
    if (round > this.opts.maxRounds) {
      log.error('publish still pending after every reconcile round; failing it', { taskId: task.id, profiles: pending.length });
      for (const e of pending) {
        const r: PublishCompleted = {
          postId: post.id,
          profileId: e.profileId,
          revision: task.revision,
          status: 'FAILED',
          error: { code: 'PUBLISH_TIMED_OUT', message: 'The publisher did not report within the allowed time.' },
          attempts: 0,
        };
        await this.results.execute(post.workspaceId, r);
      }
      return this.tasks.markDone(task.id);
    }
    log.warn('publish pending too long; asking the publisher to reconcile', { taskId: task.id, round, profiles: pending.length });
    const dueAt = (post.publishAt ?? task.dueAt).toISOString();
    for (const e of pending) {
      await this.jobs.reconcileJob(
        { postId: post.id, profileId: e.profileId, revision: task.revision, net: post.profileNets[e.profileId] ?? 'unknown', dueAt, mode: 'reconcile' },
        post.workspaceId,
        round,
      );
    }
    await this.tasks.recheckLater(task.id, round, new Date(now.getTime() + this.opts.timeoutMs));
  }
}
