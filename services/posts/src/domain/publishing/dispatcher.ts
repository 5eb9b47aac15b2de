import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger, errorFields, type Logger } from '@social/logger';
import type { PostRepository } from '../../data/post.repository';
import { taskId, type PublishTask, type PublishTaskRepository } from '../../data/publish-task.repository';
import { minutesBetween } from './due-minute';
import type { JobQueue } from './publishing.ports';
import { inTaskContext } from './task-context';

const log: Logger = createLogger('posts:dispatch');

export interface DispatcherOptions {
  tickMs: number;
  leaseMs: number;
  /** How far back the background sweep looks for tasks a down system missed. */
  lookbackMinutes: number;
  sweepMs: number;
  /** When the watchdog first looks at a dispatched task. */
  watchdogTimeoutMs: number;
  /** Tasks dispatched at once. */
  concurrency: number;
  /**
   * How long before its due time a task is claimed. Claimed ahead, a task's jobs go out at its due
   * time to the millisecond instead of on the next tick; shorter than the lease.
   */
  lookAheadMs: number;
}

/**
 * Sends each due post revision's jobs once. Every posts replica runs it: a task is claimed with a
 * conditional update (one replica wins), dispatched with confirmed publishes, then marked
 * DISPATCHED. A replica dying in between leaves a CLAIMED task whose lease runs out; another takes
 * it over and dispatches again (the publisher's ledger makes the duplicate harmless).
 *
 * Timing: each tick lists the waiting tasks due within `lookAheadMs` and claims them one by one,
 * earliest first, as dispatch slots free up, so the first jobs of a large batch leave at once
 * rather than after the whole batch is claimed. A task claimed before its due time waits in memory
 * and is dispatched when due; the post is read only then, so a change made meanwhile counts.
 */
export class Dispatcher {
  private timer?: NodeJS.Timeout;
  private sweepTimer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private sweeping?: Promise<void>;
  private stopped = false;
  /** Ends the waits of tasks claimed ahead when the dispatcher stops. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly tasks: PublishTaskRepository,
    private readonly posts: PostRepository,
    private readonly jobs: JobQueue,
    private readonly opts: DispatcherOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.opts.tickMs);
    this.sweepTimer = setInterval(() => void this.sweep(), this.opts.sweepMs);
    void this.tick();
    void this.sweep();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    clearInterval(this.timer);
    clearInterval(this.sweepTimer);
    await Promise.allSettled([this.running, this.sweeping]);
  }

  /** The recent buckets: this minute, the two before (a tick may straddle a minute) and the next
   *  one when the look-ahead reaches into it. */
  tick(): Promise<void> {
    if (this.running || this.stopped) return this.running ?? Promise.resolve();
    const now = this.now();
    const task = this.scan(minutesBetween(now.getTime() - 120_000, now.getTime() + this.opts.lookAheadMs), now)
      .catch((err) => {
        log.warn('dispatch tick failed', errorFields(err));
      })
      .finally(() => {
        this.running = undefined;
      });
    this.running = task;
    return task;
  }

  /** Older buckets, for tasks missed while every replica was down. */
  sweep(): Promise<void> {
    if (this.sweeping || this.stopped) return this.sweeping ?? Promise.resolve();
    const now = this.now();
    const buckets = minutesBetween(now.getTime() - this.opts.lookbackMinutes * 60_000, now.getTime() - 180_000);
    const task = this.scan(buckets, now)
      .catch((err) => {
        log.warn('dispatch sweep failed', errorFields(err));
      })
      .finally(() => {
        this.sweeping = undefined;
      });
    this.sweeping = task;
    return task;
  }

  /** publishNow: claim and dispatch this revision at once (the tick is the safety net). */
  async dispatchNow(postId: string, revision: number): Promise<void> {
    const token = randomUUID();
    const task = await this.tasks.claimOne(taskId(postId, revision), this.now(), token, this.opts.leaseMs);
    if (task) await inTaskContext(task, () => this.dispatch(task, token));
  }

  private async scan(buckets: string[], now: Date): Promise<void> {
    const horizon = now.getTime() + this.opts.lookAheadMs;
    for (const minute of buckets) {
      if (this.stopped) return;
      const token = randomUUID();
      const reclaimed = await this.tasks.reclaimExpired(minute, now, token, this.opts.leaseMs);
      if (reclaimed.length > 0) log.warn('re-dispatching tasks whose claim expired', { minute, count: reclaimed.length });
      const soon = (await this.tasks.waitingIn(minute)).filter((t) => t.dueAt.getTime() <= horizon);
      soon.sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime());
      await this.dispatchAll(
        [...reclaimed.map((t) => () => Promise.resolve(t)), ...soon.map((t) => () => this.tasks.claimOne(t.id, this.now(), token, this.opts.leaseMs))],
        token,
        horizon,
      );
    }
  }

  /** Claims (each `claim` yields the task, or null when another replica won it) and dispatches,
   *  `concurrency` at a time. */
  private async dispatchAll(claims: (() => Promise<PublishTask | null>)[], token: string, horizon: number): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < claims.length && !this.stopped) {
        const claim = claims[next++]!;
        const task = await claim().catch((err) => {
          log.warn('claiming a task failed; the next tick tries again', errorFields(err));
          return null;
        });
        if (!task) continue;
        await inTaskContext(task, async () => {
          try {
            // Moved later between listing and claiming (its own tick will come), or stopping while
            // it waits (another replica sends it on time): hand it back.
            if (task.dueAt.getTime() > horizon || !(await this.untilDue(task))) {
              return await this.tasks.release(task.id, token, { state: 'WAITING', dueAt: task.dueAt });
            }
            await this.dispatch(task, token);
          } catch (err) {
            // Left CLAIMED: the lease runs out and the task is dispatched again.
            log.warn('dispatch failed; will retry after the lease', { taskId: task.id, ...errorFields(err) });
          }
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.concurrency, claims.length) }, worker));
  }

  /** Waits for the task's due time; false when the dispatcher stopped meanwhile. */
  private async untilDue(task: PublishTask): Promise<boolean> {
    const left = () => task.dueAt.getTime() - this.now().getTime();
    // A loop, because a timer may fire a millisecond before the wall clock says the time has come.
    while (left() > 0) {
      try {
        await sleep(left(), undefined, { signal: this.stopping.signal });
      } catch {
        return false;
      }
    }
    return true;
  }

  /**
   * The post is the truth: a task of an old revision, or of a post no longer scheduled, is dropped.
   * Runs in the task's context (inTaskContext), so the jobs carry the planning request's id.
   */
  private async dispatch(task: PublishTask, token: string): Promise<void> {
    const post = await this.posts.get(task.workspaceId, task.postId);
    if (!post || post.revision !== task.revision || post.stage !== 'SCHEDULED') {
      return this.tasks.release(task.id, token, { state: 'CANCELLED' });
    }
    const now = this.now();
    if (post.publishAt && post.publishAt.getTime() > now.getTime()) {
      return this.tasks.release(task.id, token, { state: 'WAITING', dueAt: post.publishAt });
    }
    const pending = post.plan.filter((e) => e.status === 'PENDING' && e.revision === post.revision);
    if (pending.length === 0) return this.tasks.release(task.id, token, { state: 'DONE' });
    const dueAt = (post.publishAt ?? task.dueAt).toISOString();
    await Promise.all(
      pending.map((e) =>
        this.jobs.publishJob(
          { postId: post.id, profileId: e.profileId, revision: post.revision, net: post.profileNets[e.profileId] ?? 'unknown', dueAt },
          post.workspaceId,
        ),
      ),
    );
    await this.tasks.markDispatched(task.id, token, now, new Date(now.getTime() + this.opts.watchdogTimeoutMs));
    log.info('publish jobs dispatched', { taskId: task.id, postId: post.id, revision: post.revision, profiles: pending.length });
  }
}
