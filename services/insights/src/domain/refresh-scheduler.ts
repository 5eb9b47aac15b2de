import { createHash } from 'node:crypto';
import { errorFields, type Logger } from '@social/logger';
import { dayToIso, todayDay } from './dates';
import type { Locks, StoredTarget, TargetStore } from './ports';

export interface RefreshJob {
  target: StoredTarget;
  since: string;
  until: string;
  /** The same for every replica in one period, so a job enqueued twice is processed once. */
  id: string;
}

export interface RefreshSchedulerOptions {
  intervalMs: number;
  refreshDays: number;
}

/** A UUID-shaped id derived from a name (the envelope schema wants a uuid). */
export function stableId(name: string): string {
  const h = createHash('sha1').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Every interval, one replica (whoever claims the period in Redis) enqueues a refresh job of the
 * last `refreshDays` days for every known target; the jobs then spread over all replicas through
 * the queue, and the per-target lock keeps two replicas off the same target.
 */
export class RefreshScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly targets: TargetStore,
    private readonly locks: Locks,
    private readonly enqueue: (job: RefreshJob) => Promise<void>,
    private readonly opts: RefreshSchedulerOptions,
    private readonly log: Logger,
    private readonly afterTick: () => Promise<void> = async () => undefined,
  ) {}

  start(): void {
    if (this.opts.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch((err) => this.log.error('refresh tick failed', errorFields(err)))
        .finally(() => (this.running = undefined));
    }, this.opts.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Enqueues this period's refresh jobs unless another replica already did; returns how many. */
  async tick(now = Date.now()): Promise<number> {
    const period = Math.floor(now / this.opts.intervalMs);
    const claimed = await this.locks.tryAcquire(`refresh-period:${period}`, Math.max(this.opts.intervalMs, 1000) * 2);
    if (!claimed) return 0;
    const until = todayDay(now);
    const since = until - this.opts.refreshDays + 1;
    let count = 0;
    for await (const target of this.targets.all()) {
      await this.enqueue({ target, since: dayToIso(since), until: dayToIso(until), id: stableId(`${target._id}:${period}`) });
      count += 1;
    }
    this.log.info('refresh jobs enqueued', { targets: count, since: dayToIso(since), until: dayToIso(until), period });
    await this.afterTick();
    return count;
  }
}
