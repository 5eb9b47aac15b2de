import { createLogger, errorFields, type Logger } from '@social/logger';
import type { PostRecord } from '../posts/post.types';
import { jobFor } from './dispatcher';
import type { JobQueue, PublishingPosts } from './ports';
import { inPlanContext, planOrigin } from './task-context';

const log: Logger = createLogger('posts:watchdog');

export interface WatchdogOptions {
  tickMs: number;
  /** After dispatch, when the watchdog first asks about profiles still PENDING. */
  timeoutMs: number;
  /** The longest wait between two questions about one post (they back off from timeoutMs). */
  maxIntervalMs: number;
}

/**
 * Nothing is left PENDING without somebody working on it. A dispatched revision with profiles still
 * PENDING after the timeout gets reconcile jobs: the publisher answers from its ledger and the
 * network, and publishes what no attempt ever reached the network for (jobs lost to a crash). It
 * never gives up on its own: only the publisher, which knows what was sent, may say FAILED, so a
 * profile whose outcome nobody can know yet stays PENDING and is asked about again, less and less
 * often. Every dispatched post is checked whatever its age and whatever failed before (a broker
 * that was down, a tick that threw): what is due stays due until a check has gone through.
 */
export class Watchdog {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly posts: PublishingPosts,
    private readonly jobs: JobQueue,
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
    const task = this.checkDue()
      .catch((err) => void log.warn('watchdog tick failed; the next tick tries again', errorFields(err)))
      .finally(() => {
        this.running = undefined;
      });
    this.running = task;
    return task;
  }

  private async checkDue(): Promise<void> {
    const now = this.now();
    for (const post of await this.posts.dueForCheck(now)) {
      if (this.stopped) return;
      await inPlanContext({ workspaceId: post.workspaceId, ...planOrigin(post) }, 'posts watchdog check', { 'post.id': post.id }, () =>
        this.check(post, now).catch(
          (err) => void log.warn('watchdog check failed; it stays due', { postId: post.id, ...errorFields(err) }),
        ),
      );
    }
  }

  private async check(post: PostRecord, now: Date): Promise<void> {
    const pending = post.plan.filter((e) => e.status === 'PENDING' && e.revision === post.revision);
    const round = (post.dispatch?.rounds ?? 0) + 1;
    if (pending.length > 0) {
      log.warn('publish pending too long; asking the publisher to reconcile', { postId: post.id, round, profiles: pending.length });
      for (const e of pending) await this.jobs.reconcileJob({ ...jobFor(post, e.profileId), mode: 'reconcile' }, post.workspaceId, round);
    }
    // Only once every question went out: a check that failed half-way stays due and runs again.
    const wait = Math.min(this.opts.maxIntervalMs, this.opts.timeoutMs * 2 ** Math.min(round - 1, 20));
    await this.posts.modify(post.workspaceId, post.id, (p) => {
      if (p.revision !== post.revision || p.dispatch?.state !== 'DISPATCHED') return null;
      const stillPending = p.plan.some((e) => e.status === 'PENDING' && e.revision === p.revision);
      const dispatch = stillPending ? { ...p.dispatch, checkAt: new Date(now.getTime() + wait), rounds: round } : null;
      return { ...p, dispatch, version: p.version + 1 };
    });
  }
}
