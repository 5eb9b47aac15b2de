import { backfillWindow } from './collection-window';

describe('backfillWindow', () => {
  it('covers the given number of days, today included (UTC)', () => {
    expect(backfillWindow(90, new Date('2026-03-31T23:59:00.000Z'))).toEqual({ since: '2026-01-01', until: '2026-03-31' });
    expect(backfillWindow(1, new Date('2026-03-01T00:00:00.000Z'))).toEqual({ since: '2026-03-01', until: '2026-03-01' });
  });
});
