const DAY_MS = 86_400_000;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Days since 1970-01-01 (UTC): the sandbox's unit of time for daily metrics. */
export type DayNumber = number;

export function parseDay(value: string): DayNumber | undefined {
  if (!ISO_DAY.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00.000Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) return undefined;
  return ms / DAY_MS;
}

export function dayToIso(day: DayNumber): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function dayOfMs(ms: number): DayNumber {
  return Math.floor(ms / DAY_MS);
}

export function dayStartMs(day: DayNumber): number {
  return day * DAY_MS;
}

export { DAY_MS };

export interface DayRange {
  since: DayNumber;
  until: DayNumber;
}

/** Two years: enough for year-over-year comparisons, small enough to compute on every call. */
export const MAX_RANGE_DAYS = 731;

/** Problems with since/until as `details` entries; empty when the range is usable. */
export function checkRange(
  since: string | undefined,
  until: string | undefined,
): { range?: DayRange; problems: { path: string; message: string }[] } {
  const problems: { path: string; message: string }[] = [];
  const s = since === undefined ? undefined : parseDay(since);
  const u = until === undefined ? undefined : parseDay(until);
  if (s === undefined) problems.push({ path: '/query/since', message: 'must be a date in the form YYYY-MM-DD' });
  if (u === undefined) problems.push({ path: '/query/until', message: 'must be a date in the form YYYY-MM-DD' });
  if (s !== undefined && u !== undefined) {
    if (s > u) problems.push({ path: '/query/since', message: 'must not be after until' });
    else if (u - s + 1 > MAX_RANGE_DAYS)
      problems.push({ path: '/query/until', message: `the range may span at most ${MAX_RANGE_DAYS} days` });
  }
  return problems.length > 0 ? { problems } : { range: { since: s!, until: u! }, problems };
}
