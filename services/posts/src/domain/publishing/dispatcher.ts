import { setTimeout as sleep } from 'node:timers/promises';
import type { PublishContent, PublishRequested } from '@social/contracts';
import { createLogger, errorFields, type Logger } from '@social/logger';
import type { NetworkKey } from '../posts/networks';
import type { PostRecord } from '../posts/post.types';
import { contentForNetwork } from '../posts/publishing-content';
import type { DueRevision, JobQueue, PublishingPosts } from './ports';
import { inPlanContext, planOrigin } from './task-context';

const log: Logger = createLogger('posts:dispatch');

export interface DispatcherOptions {
  tickMs: number;
  /**
   * How long before its due time a revision is listed: it then waits in memory and is claimed and
   * sent at the due time to the millisecond, instead of on the next tick.
   */
  lookAheadMs: number;
  /** Revisions claimed and sent at once. */
  concurrency: number;
  /** Revisions due together that are claimed in one database command. */
  batchSize: number;
  /** When the watchdog first looks at a dispatched revision. */
  watchdogTimeoutMs: number;
}

/**
 * Sends each due revision's jobs. Every posts replica runs it. At the due time a revision is
 * claimed with a compare-and-set on the post itself (WAITING → DISPATCHED, a new version): one
 * replica wins, and a change to the post that was under way (an edit or unschedule that passed its
 * checks just before the due time) loses its own compare-and-set and answers 409, so what is sent is
 * what the post says. The jobs carry that content. If sending fails (broker down) the revision is
 * handed back, due at once; if the process dies between claim and send, the watchdog finds the
 * revision DISPATCHED without results and asks the publisher, which publishes what was never tried.
 */
export class Dispatcher {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  /** Ends the waits for due times when the dispatcher stops (nothing is claimed before its time). */
  private readonly stopping = new AbortController();

  constructor(
    private readonly posts: PublishingPosts,
    private readonly jobs: JobQueue,
    private readonly opts: DispatcherOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.opts.tickMs);
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    clearInterval(this.timer);
    await this.running;
  }

  tick(): Promise<void> {
    if (this.running || this.stopped) return this.running ?? Promise.resolve();
    const task = this.dispatchDue()
      .catch((err) => void log.warn('dispatch tick failed; the next tick tries again', errorFields(err)))
      .finally(() => {
        this.running = undefined;
      });
    this.running = task;
    return task;
  }

  /** publishNow and retry: the revision is due now; claim and send it without waiting for a tick. */
  async dispatchNow(post: PostRecord): Promise<void> {
    if (post.dispatch?.state !== 'WAITING') return;
    await this.claimAndSend({ workspaceId: post.workspaceId, postId: post.id, revision: post.revision, dueAt: post.dispatch.dueAt });
  }

  private async dispatchDue(): Promise<void> {
    const now = this.now();
    const due = await this.posts.waitingUntil(new Date(now.getTime() + this.opts.lookAheadMs), now);
    due.sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime());
    // Revisions due by now go in batches (one claim command each), up to `concurrency` in hand.
    let next = 0;
    let inHand = 0;
    const running = new Set<Promise<void>>();
    while (next < due.length && !this.stopped) {
      if (!(await this.untilDue(due[next]!.dueAt))) break;
      while (inHand >= this.opts.concurrency) await Promise.race(running);
      const now = this.now().getTime();
      const batch: DueRevision[] = [];
      const room = Math.min(this.opts.batchSize, this.opts.concurrency - inHand);
      while (next < due.length && batch.length < room && due[next]!.dueAt.getTime() <= now) batch.push(due[next++]!);
      inHand += batch.length;
      const run: Promise<void> = this.claimAndSendMany(batch).finally(() => {
        inHand -= batch.length;
        running.delete(run);
      });
      running.add(run);
    }
    await Promise.all(running);
  }

  /** Waits for a due time; false when the dispatcher stopped meanwhile. */
  private async untilDue(dueAt: Date): Promise<boolean> {
    const left = () => dueAt.getTime() - this.now().getTime();
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

  /** Claims a batch of due revisions together, then sends the jobs of each claimed one. */
  private async claimAndSendMany(due: DueRevision[]): Promise<void> {
    const checkAt = new Date(this.now().getTime() + this.opts.watchdogTimeoutMs);
    let posts: (PostRecord | null)[];
    try {
      posts = await this.posts.claimManyForDispatch(due, checkAt);
    } catch (err) {
      log.warn('dispatch failed; the next tick tries again', { posts: due.length, ...errorFields(err) });
      return;
    }
    await Promise.all(
      posts.map((post) =>
        post
          ? this.send(post).catch(
              (err) => void log.warn('dispatch failed; the watchdog will settle it', { postId: post.id, ...errorFields(err) }),
            )
          : undefined,
      ),
    );
  }

  private async claimAndSend(due: DueRevision): Promise<void> {
    const now = this.now();
    const post = await this.posts.claimForDispatch(due, new Date(now.getTime() + this.opts.watchdogTimeoutMs));
    if (!post) return; // changed since it was listed, or another replica has it
    await this.send(post);
  }

  /** Sends the jobs of a claimed revision; hands it back when they cannot be sent. */
  private async send(post: PostRecord): Promise<void> {
    const attributes = { 'post.id': post.id, 'post.revision': post.revision };
    await inPlanContext({ workspaceId: post.workspaceId, ...planOrigin(post) }, 'posts dispatch', attributes, async () => {
      const pending = post.plan.filter((e) => e.status === 'PENDING' && e.revision === post.revision);
      try {
        await Promise.all(pending.map((e) => this.jobs.publishJob(jobFor(post, e.profileId), post.workspaceId)));
        log.info('publish jobs dispatched', { postId: post.id, revision: post.revision, profiles: pending.length });
      } catch (err) {
        log.warn('publish jobs could not be sent; handing the revision back', { postId: post.id, ...errorFields(err) });
        await this.handBack(post);
      }
    });
  }

  /** Back to WAITING, due at once, unless something else changed the post since the claim. */
  private async handBack(claimed: PostRecord): Promise<void> {
    await this.posts
      .modify(claimed.workspaceId, claimed.id, (p) =>
        p.version === claimed.version && p.dispatch?.state === 'DISPATCHED'
          ? { ...p, dispatch: { ...p.dispatch, state: 'WAITING', dueAt: this.now(), checkAt: null }, version: p.version + 1 }
          : null,
      )
      .catch(
        (err) =>
          void log.warn('could not hand the revision back; the watchdog will settle it', { postId: claimed.id, ...errorFields(err) }),
      );
  }
}

/** The job of one profile of a dispatched revision, with the content its network receives. */
export function jobFor(post: PostRecord, profileId: string): PublishRequested {
  const net = post.profileNets[profileId] ?? ('unknown' as NetworkKey);
  const c = contentForNetwork(post, net);
  const content: PublishContent = {
    type: post.type,
    caption: c.caption?.plainText ?? null,
    firstComment: c.caption?.firstComment?.plainText ?? null,
    mediaLibIds: c.mediaLibIds,
    links: c.links.map((l) => ({
      link: l.link,
      title: l.linkTitle ?? null,
      description: l.linkDescription ?? null,
      mediaLibId: l.mediaLibId ?? null,
    })),
    settings: c.settings,
  };
  const dueAt = (post.dispatch?.dueAt ?? post.publishAt ?? new Date()).toISOString();
  return { postId: post.id, profileId, revision: post.revision, net, dueAt, content };
}
