import { setMaxListeners } from 'node:events';
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
   * How long before its claim time a revision is listed: it then waits in memory and is claimed on
   * time to the millisecond, instead of on the next tick.
   */
  lookAheadMs: number;
  /**
   * How long before its due time a revision is claimed. From the claim on the post is being
   * published (changes answer 409), and its jobs leave at the due time itself: a batch due at one
   * moment is claimed beforehand instead of while the first of it is being published.
   */
  claimLeadMs: number;
  /** Revisions whose jobs are sent at once. */
  concurrency: number;
  /** Revisions due together that are claimed in one database command. */
  batchSize: number;
  /** When the watchdog first looks at a dispatched revision, after its due time. */
  watchdogTimeoutMs: number;
}

const keyOf = (d: { postId: string; revision: number }) => `${d.postId}:${d.revision}`;

/**
 * Sends each due revision's jobs. Every posts replica runs it. `claimLeadMs` before the due time a
 * revision is claimed with a compare-and-set on the post itself (WAITING → DISPATCHED, a new
 * version): one replica wins, and a change to the post that was under way (an edit or unschedule
 * that passed its checks just before) loses its own compare-and-set and answers 409, so what is
 * sent is what the post says. The claiming replica sends the jobs, carrying that content, at the
 * due time. If sending fails (broker down) the revision is handed back, due at once; a replica that
 * stops hands back what it claimed and has not sent; if the process dies between claim and send,
 * the watchdog finds the revision DISPATCHED without results and asks the publisher, which
 * publishes what was never tried.
 */
export class Dispatcher {
  private timer?: NodeJS.Timeout;
  private listing?: Promise<void>;
  private stopped = false;
  /** Ends the waits (nothing is claimed or sent before its time) when the dispatcher stops. */
  private readonly stopping = new AbortController();
  /** Every revision this replica listed and has not finished with (claimed and sent, or dropped). */
  private readonly held = new Set<string>();
  /** Listed revisions waiting for their claim time, earliest due first. */
  private toClaim: DueRevision[] = [];
  /** Wakes the claim loop when a listing adds revisions. */
  private wake?: () => void;
  private claimLoop?: Promise<void>;
  /** Claims and sends under way (awaited on stop). */
  private readonly work = new Set<Promise<void>>();
  private sending = 0;
  private readonly sendSlots: (() => void)[] = [];

  constructor(
    private readonly posts: PublishingPosts,
    private readonly jobs: JobQueue,
    private readonly opts: DispatcherOptions,
    private readonly now: () => Date = () => new Date(),
  ) {
    // Every claimed post waits for its due time on this signal: a burst is many listeners, not a leak.
    setMaxListeners(0, this.stopping.signal);
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.opts.tickMs);
    this.claimLoop = this.claimWhenDue();
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    this.wake?.();
    clearInterval(this.timer);
    await this.listing;
    await this.claimLoop;
    while (this.work.size > 0) await Promise.all(this.work);
  }

  /**
   * Lists the revisions due soon that this replica does not hold yet. Not while claims are behind
   * (a revision whose claim time has passed is still waiting): a listing reads every waiting post
   * of the coming minutes whole, those already held included, and what it could add would only
   * queue behind them. In a burst of thousands that re-reading, once a tick, cost more database
   * work than the claims themselves.
   */
  tick(): Promise<void> {
    if (this.listing || this.stopped) return this.listing ?? Promise.resolve();
    if (this.claimsBehind()) return Promise.resolve();
    const task = this.listDue()
      .catch((err) => void log.warn('dispatch tick failed; the next tick tries again', errorFields(err)))
      .finally(() => {
        this.listing = undefined;
      });
    this.listing = task;
    return task;
  }

  private claimsBehind(): boolean {
    const first = this.toClaim[0];
    return first !== undefined && first.dueAt.getTime() - this.opts.claimLeadMs <= this.now().getTime();
  }

  /** publishNow and retry: the revision is due now; claim and send it without waiting for a tick. */
  async dispatchNow(post: PostRecord): Promise<void> {
    if (post.dispatch?.state !== 'WAITING') return;
    const due = { workspaceId: post.workspaceId, postId: post.id, revision: post.revision, dueAt: post.dispatch.dueAt };
    const claimed = await this.posts.claimForDispatch(due, this.checkAt(due));
    if (claimed) await this.send(claimed); // else changed since, or another replica has it
  }

  private async listDue(): Promise<void> {
    const now = this.now();
    const horizon = new Date(now.getTime() + this.opts.claimLeadMs + this.opts.lookAheadMs);
    // What this replica held when the scan began may have been claimed and sent (and let go) while
    // it ran: the scan's WAITING copy of it is stale. The next scan lists it if it is still waiting.
    const heldBefore = new Set(this.held);
    const fresh = (await this.posts.waitingUntil(horizon, now)).filter((d) => !this.held.has(keyOf(d)) && !heldBefore.has(keyOf(d)));
    if (fresh.length === 0 || this.stopped) return;
    for (const due of fresh) this.held.add(keyOf(due));
    this.toClaim.push(...fresh);
    this.toClaim.sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime());
    this.wake?.();
  }

  /**
   * Claims listed revisions as their claim times come, in batches of those due together (one
   * database command each), one batch after the other so that claims do not crowd out the sends.
   */
  private async claimWhenDue(): Promise<void> {
    while (!this.stopped) {
      const first = this.toClaim[0];
      const claimAt = first ? first.dueAt.getTime() - this.opts.claimLeadMs : Infinity;
      if (claimAt > this.now().getTime()) {
        await this.idle(claimAt === Infinity ? null : claimAt - this.now().getTime());
        continue;
      }
      const now = this.now().getTime();
      const batch: DueRevision[] = [];
      while (
        batch.length < this.opts.batchSize &&
        this.toClaim.length > 0 &&
        this.toClaim[0]!.dueAt.getTime() - this.opts.claimLeadMs <= now
      )
        batch.push(this.toClaim.shift()!);
      await this.claimThenSend(batch);
    }
  }

  /** Waits `ms` (forever when null) or until woken by a listing or stop. */
  private async idle(ms: number | null): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = ms === null ? undefined : setTimeout(resolve, Math.max(0, ms));
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
    this.wake = undefined;
  }

  /** Claims a batch together, then sends the jobs of each claimed revision at its due time. */
  private async claimThenSend(batch: DueRevision[]): Promise<void> {
    let posts: (PostRecord | null)[];
    try {
      posts = await this.posts.claimManyForDispatch(batch, this.checkAt(batch[batch.length - 1]!));
    } catch (err) {
      log.warn('dispatch failed; the next tick tries again', { posts: batch.length, ...errorFields(err) });
      for (const due of batch) this.held.delete(keyOf(due));
      return;
    }
    batch.forEach((due, i) => {
      const post = posts[i];
      if (!post) return void this.held.delete(keyOf(due)); // changed since it was listed, or another replica has it
      this.track(this.sendWhenDue(due, post));
    });
  }

  private track(p: Promise<void>): void {
    this.work.add(p);
    void p.finally(() => this.work.delete(p));
  }

  private async sendWhenDue(due: DueRevision, post: PostRecord): Promise<void> {
    try {
      if (!(await this.untilDue(due.dueAt))) return await this.handBack(post, due.dueAt); // stopping: another replica sends it
      await this.takeSendSlot();
      try {
        // Stopping while it waited for a slot (claims are not bounded by the sends): it has not
        // been sent, so another replica sends it rather than this one after all those before it.
        if (this.stopped) return await this.handBack(post, due.dueAt);
        await this.send(post);
      } finally {
        this.releaseSendSlot();
      }
    } catch (err) {
      log.warn('dispatch failed; the watchdog will settle it', { postId: post.id, ...errorFields(err) });
    } finally {
      this.held.delete(keyOf(due));
    }
  }

  private async takeSendSlot(): Promise<void> {
    if (this.sending < this.opts.concurrency) {
      this.sending += 1;
      return;
    }
    await new Promise<void>((resolve) => this.sendSlots.push(resolve)); // the slot is handed over as is
  }

  private releaseSendSlot(): void {
    const next = this.sendSlots.shift();
    if (next) next();
    else this.sending -= 1;
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

  /** The watchdog's first look: counted from the due time, not from a claim made ahead of it. */
  private checkAt(due: DueRevision): Date {
    return new Date(Math.max(this.now().getTime(), due.dueAt.getTime()) + this.opts.watchdogTimeoutMs);
  }

  /** Sends the jobs of a claimed revision; hands it back, due at once, when they cannot be sent. */
  private async send(post: PostRecord): Promise<void> {
    const attributes = { 'post.id': post.id, 'post.revision': post.revision };
    await inPlanContext({ workspaceId: post.workspaceId, ...planOrigin(post) }, 'posts dispatch', attributes, async () => {
      const pending = post.plan.filter((e) => e.status === 'PENDING' && e.revision === post.revision);
      try {
        await Promise.all(pending.map((e) => this.jobs.publishJob(jobFor(post, e.profileId), post.workspaceId)));
        log.info('publish jobs dispatched', { postId: post.id, revision: post.revision, profiles: pending.length });
      } catch (err) {
        log.warn('publish jobs could not be sent; handing the revision back', { postId: post.id, ...errorFields(err) });
        await this.handBack(post, this.now());
      }
    });
  }

  /** Back to WAITING, due at `dueAt`, unless something else changed the post since the claim. */
  private async handBack(claimed: PostRecord, dueAt: Date): Promise<void> {
    await this.posts
      .modify(claimed.workspaceId, claimed.id, (p) =>
        p.version === claimed.version && p.dispatch?.state === 'DISPATCHED'
          ? { ...p, dispatch: { ...p.dispatch, state: 'WAITING', dueAt, checkAt: null }, version: p.version + 1 }
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
