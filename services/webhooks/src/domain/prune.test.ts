import type { Deliveries } from './ports';
import { PruneDeliveries } from './prune.use-case';

/** Deliveries of which `old` per state are past the retention; records each call. */
function fakeDeliveries(old: { DELIVERED: number; FAILED: number }) {
  const calls: string[] = [];
  const store = {
    async deleteSettledBefore(state: 'DELIVERED' | 'FAILED', before: Date, limit: number) {
      calls.push(`${state}:${before.toISOString()}:${limit}`);
      const n = Math.min(limit, old[state]);
      old[state] -= n;
      return n;
    },
  } as Pick<Deliveries, 'deleteSettledBefore'> as Deliveries;
  return { store, calls, old };
}

describe('pruning old deliveries', () => {
  const now = new Date('2026-03-31T00:00:00Z');

  it('deletes settled deliveries older than the retention in batches until a batch comes back short', async () => {
    const f = fakeDeliveries({ DELIVERED: 5, FAILED: 2 });
    expect(await new PruneDeliveries({ deliveries: f.store, policy: { retentionDays: 30, batchSize: 2, maxBatches: 20 } }).run(now)).toBe(
      7,
    );
    expect(f.calls).toEqual([
      'DELIVERED:2026-03-01T00:00:00.000Z:2',
      'DELIVERED:2026-03-01T00:00:00.000Z:2',
      'DELIVERED:2026-03-01T00:00:00.000Z:2',
      'FAILED:2026-03-01T00:00:00.000Z:2',
      'FAILED:2026-03-01T00:00:00.000Z:2',
    ]);
  });

  it('stops after maxBatches calls per state and leaves the rest to the next run', async () => {
    const f = fakeDeliveries({ DELIVERED: 100, FAILED: 100 });
    expect(await new PruneDeliveries({ deliveries: f.store, policy: { retentionDays: 1, batchSize: 10, maxBatches: 3 } }).run(now)).toBe(
      60,
    );
    expect(f.old).toEqual({ DELIVERED: 70, FAILED: 70 });
  });
});
