const DAY_MS = 86_400_000;

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The inclusive UTC day range of a backfill: the last `days` days up to and including today. */
export function backfillWindow(days: number, now: Date = new Date()): { since: string; until: string } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { since: isoDate(today - (days - 1) * DAY_MS), until: isoDate(today) };
}
