import { GroupCommit } from './group-commit';

/** An operation whose runs are released by hand, recording when each began. */
function controlled() {
  const runs: { key: string; release: () => void; fail: (e: Error) => void }[] = [];
  const op = (key: string) =>
    new Promise<void>((resolve, reject) => {
      runs.push({ key, release: resolve, fail: reject });
    });
  return { runs, op };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('GroupCommit', () => {
  it('runs at once when nothing is in flight', async () => {
    const { runs, op } = controlled();
    const g = new GroupCommit(op);
    const done = g.run('w1');
    expect(runs).toHaveLength(1);
    runs[0]!.release();
    await expect(done).resolves.toBeUndefined();
  });

  it('never lets a caller join a run already under way: callers during a run share one follow-up run', async () => {
    const { runs, op } = controlled();
    const g = new GroupCommit(op);
    let firstDone = false;
    const first = g.run('w1').then(() => (firstDone = true));
    const joined = [g.run('w1'), g.run('w1'), g.run('w1')];
    let joinedDone = 0;
    for (const j of joined) void j.then(() => joinedDone++);
    expect(runs).toHaveLength(1);

    runs[0]!.release();
    await first;
    await tick();
    expect(firstDone).toBe(true);
    expect(joinedDone).toBe(0); // the first run began before their calls: it does not cover them
    expect(runs).toHaveLength(2);

    runs[1]!.release();
    await Promise.all(joined);
    expect(joinedDone).toBe(3);
    expect(runs).toHaveLength(2);
  });

  it('keeps keys apart', async () => {
    const { runs, op } = controlled();
    const g = new GroupCommit(op);
    const a = g.run('w1');
    const b = g.run('w2');
    expect(runs.map((r) => r.key)).toEqual(['w1', 'w2']);
    runs.forEach((r) => r.release());
    await Promise.all([a, b]);
  });

  it('gives a failed run its error to every caller of that run, and the next caller a fresh run', async () => {
    const { runs, op } = controlled();
    const g = new GroupCommit(op);
    const first = g.run('w1');
    const second = g.run('w1');
    runs[0]!.fail(new Error('db down'));
    await expect(first).rejects.toThrow('db down');
    await tick();
    runs[1]!.fail(new Error('still down'));
    await expect(second).rejects.toThrow('still down');

    const third = g.run('w1');
    expect(runs).toHaveLength(3);
    runs[2]!.release();
    await expect(third).resolves.toBeUndefined();
  });
});
