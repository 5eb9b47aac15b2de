import { nextTry } from './retry-policy';

const policy = { baseMs: 1000, maxMs: 30_000, retryAfterMaxMs: 900_000 };

describe('the wait before the next try', () => {
  it('grows with the tries, jittered, and never beyond the cap', () => {
    const waits = (tries: number) => Array.from({ length: 200 }, () => nextTry(tries, policy));
    expect(Math.max(...waits(1))).toBeLessThanOrEqual(1500);
    expect(Math.min(...waits(1))).toBeGreaterThanOrEqual(500);
    expect(new Set(waits(3)).size).toBeGreaterThan(50); // jittered: tries of many jobs spread out
    expect(Math.max(...waits(20))).toBeLessThanOrEqual(30_000);
  });

  it('honours Retry-After, up to its own cap', () => {
    expect(nextTry(1, policy, 120_000)).toBe(120_000);
    expect(nextTry(1, policy, 3_600_000)).toBe(900_000);
  });
});
