import { Batcher, BatchTimeoutError, type RunLimits } from './batcher';

/** A run that waits until released, recording the batches it was given. */
function gatedRun() {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const run = async (items: number[]) => {
    batches.push(items);
    await new Promise<void>((r) => gates.push(r));
    return items.map((i) => (i < 0 ? new Error(`bad ${i}`) : i * 10));
  };
  const releaseAll = async () => {
    while (gates.length > 0) {
      gates.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { batches, run, releaseAll };
}

describe('Batcher', () => {
  it('sends an item at once when a slot is free, and items arriving meanwhile together in the next run', async () => {
    const g = gatedRun();
    const b = new Batcher(g.run, { maxBatch: 10, maxInFlight: 1 });
    const first = b.push(1);
    const rest = [2, 3, 4].map((i) => b.push(i));
    expect(g.batches).toEqual([[1]]);
    await g.releaseAll();
    expect(await first).toBe(10);
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
    expect(g.batches).toEqual([[1], [2, 3, 4]]);
  });

  it('keeps to maxBatch and maxInFlight', async () => {
    const g = gatedRun();
    const b = new Batcher(g.run, { maxBatch: 2, maxInFlight: 2 });
    const all = [1, 2, 3, 4, 5, 6].map((i) => b.push(i));
    expect(g.batches).toEqual([[1], [2]]);
    await g.releaseAll();
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(g.batches.every((x) => x.length <= 2)).toBe(true);
    expect(g.batches.flat().sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('fails only the item its run answered with an Error, and every item of a run that threw', async () => {
    const g = gatedRun();
    const b = new Batcher(g.run, { maxBatch: 10, maxInFlight: 1 });
    const checked = [expect(b.push(1)).resolves.toBe(10), expect(b.push(-1)).rejects.toThrow('bad -1')];
    await g.releaseAll();
    await Promise.all(checked);

    const failing = new Batcher<number, number>(
      async () => {
        throw new Error('database down');
      },
      { maxBatch: 10, maxInFlight: 1 },
    );
    await expect(Promise.all([failing.push(1), failing.push(2)])).rejects.toThrow('database down');
    await expect(failing.push(3)).rejects.toThrow('database down');
  });

  it('by default runs one command at a time, of at most 100 items (group commit)', async () => {
    const g = gatedRun();
    const b = new Batcher(g.run);
    const all = Array.from({ length: 150 }, (_, i) => b.push(i));
    expect(g.batches.map((x) => x.length)).toEqual([1]);
    await g.releaseAll();
    await g.releaseAll();
    expect(await Promise.all(all)).toEqual(Array.from({ length: 150 }, (_, i) => i * 10));
    expect(g.batches.map((x) => x.length)).toEqual([1, 100, 49]);
  });

  it('fails the items of a run that never answers after timeoutMs, and sends the next items in a new run', async () => {
    const batches: number[][] = [];
    const limits: RunLimits[] = [];
    let answerLate!: () => void;
    const run = async (items: number[], l: RunLimits) => {
      batches.push(items);
      limits.push(l);
      // The first command hangs (until the test lets it answer, long after it was abandoned).
      if (batches.length === 1) await new Promise<void>((r) => (answerLate = r));
      return items.map((i) => i * 10);
    };
    const b = new Batcher(run, { maxBatch: 10, maxInFlight: 1, timeoutMs: 50 });
    const started = Date.now();
    const hung = b.push(1).catch((err: unknown) => err);
    const waiting = [b.push(2), b.push(3)];
    expect(batches).toEqual([[1]]);

    const err = await hung;
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(err).toBeInstanceOf(BatchTimeoutError);
    expect((err as Error).message).toMatch(/timed out: no answer within 50 ms/);
    expect(await Promise.all(waiting)).toEqual([20, 30]);
    expect(batches).toEqual([[1], [2, 3]]);
    expect(limits).toEqual([{ timeoutMS: 50 }, { timeoutMS: 50 }]);

    // The abandoned run's late answer changes nothing, and the batcher goes on.
    answerLate();
    await new Promise((r) => setImmediate(r));
    expect(await b.push(5)).toBe(50);
  });
});
