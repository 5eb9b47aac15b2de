import type { Deliveries } from './ports';

export interface PrunePolicy {
  retentionDays: number;
  /** Deliveries deleted per database call. */
  batchSize: number;
  /** Calls per state and run at most; what is left goes at the next run. */
  maxBatches: number;
}

const DAY_MS = 86_400_000;

/**
 * Deletes the delivered and failed deliveries last updated more than the retention ago, in bounded
 * batches (FerretDB has no TTL indexes). Pending deliveries are never deleted, however old: they
 * are still being attempted.
 */
export class PruneDeliveries {
  constructor(private readonly d: { deliveries: Deliveries; policy: PrunePolicy }) {}

  /** How many deliveries went. */
  async run(now: Date): Promise<number> {
    const { deliveries, policy } = this.d;
    const before = new Date(now.getTime() - policy.retentionDays * DAY_MS);
    let total = 0;
    for (const state of ['DELIVERED', 'FAILED'] as const) {
      for (let batch = 0; batch < policy.maxBatches; batch++) {
        const n = await deliveries.deleteSettledBefore(state, before, policy.batchSize);
        total += n;
        if (n < policy.batchSize) break;
        // Between batches, let the attempts and API calls waiting on this process go first.
        await new Promise((r) => setImmediate(r));
      }
    }
    return total;
  }
}
