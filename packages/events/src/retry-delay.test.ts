import { retryDelay } from './retry-delay';

describe('retryDelay', () => {
  afterEach(() => jest.restoreAllMocks());

  it('doubles the ceiling with every attempt', () => {
    jest.spyOn(Math, 'random').mockReturnValue(0.999999);
    const delays = [1, 2, 3, 4].map((attempt) => retryDelay(attempt, { baseMs: 100, maxMs: 10000 }));
    expect(delays).toEqual([99, 199, 399, 799]);
  });

  it('never exceeds maxMs, even for huge attempt numbers', () => {
    jest.spyOn(Math, 'random').mockReturnValue(0.999999);
    expect(retryDelay(12, { baseMs: 100, maxMs: 5000 })).toBe(4999);
    expect(retryDelay(5000, { baseMs: 100, maxMs: 5000 })).toBe(4999);
  });

  it('spreads delays over the whole range (full jitter)', () => {
    const delays = Array.from({ length: 2000 }, () => retryDelay(4, { baseMs: 100, maxMs: 10000 }));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThan(800);
    expect(delays.filter((d) => d < 200).length).toBeGreaterThan(300);
    expect(delays.filter((d) => d >= 600).length).toBeGreaterThan(300);
  });
});
