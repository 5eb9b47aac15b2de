import type { Deliveries, DeliveryJobs } from './ports';

/**
 * The safety net of at-least-once: a pending delivery whose next attempt is long overdue lost its
 * job (a crash between the write and the queueing, a broker outage); it is queued again.
 */
export class RequeueOverdue {
  constructor(private readonly d: { deliveries: Deliveries; jobs: DeliveryJobs; graceMs: number }) {}

  /** How many deliveries were queued again. */
  async run(now: Date): Promise<number> {
    const { deliveries, jobs, graceMs } = this.d;
    let n = 0;
    for (const d of await deliveries.allPending()) {
      const due = (d.nextAttemptAt ?? d.createdAt).getTime();
      if (now.getTime() - due < graceMs) continue;
      await jobs.enqueue(d.id, d.attempts + 1, d.workspaceId, { ordered: d.orderKey !== null });
      n++;
    }
    return n;
  }
}
