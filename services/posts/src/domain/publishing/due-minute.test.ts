import { minuteOf, minutesBetween } from './due-minute';

describe('due-minute buckets', () => {
  it('keys a time by its UTC minute', () => {
    expect(minuteOf(new Date('2030-01-02T03:04:59.999Z'))).toBe('2030-01-02T03:04');
  });

  it('lists every bucket of a window, both ends included', () => {
    expect(minutesBetween(new Date('2030-01-02T03:04:30Z'), new Date('2030-01-02T03:06:00Z'))).toEqual([
      '2030-01-02T03:04',
      '2030-01-02T03:05',
      '2030-01-02T03:06',
    ]);
  });
});
