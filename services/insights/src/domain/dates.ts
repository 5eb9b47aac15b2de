/** Calendar days as `YYYY-MM-DD` strings (UTC), the unit of every insights range. */

export const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01, or undefined when the string is not a real calendar date. */
export function parseDay(value: string): number | undefined {
  const m = DATE.exec(value);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const day = ms / DAY_MS;
  // Date.UTC rolls 2026-02-30 over to March; a round trip catches it.
  return dayToIso(day) === value ? day : undefined;
}

export function dayToIso(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function todayDay(now = Date.now()): number {
  return Math.floor(now / DAY_MS);
}

export function dayOfTimestamp(iso: string): number {
  return Math.floor(Date.parse(iso) / DAY_MS);
}

/** `YYYY-MM` of a day. */
export function monthOf(day: number): string {
  return dayToIso(day).slice(0, 7);
}

/** The months touched by an inclusive range of days, oldest first. */
export function monthsBetween(since: number, until: number): string[] {
  const out: string[] = [];
  const start = new Date(since * DAY_MS);
  let y = start.getUTCFullYear();
  let mo = start.getUTCMonth();
  const last = monthOf(until);
  for (;;) {
    const month = `${String(y).padStart(4, '0')}-${String(mo + 1).padStart(2, '0')}`;
    out.push(month);
    if (month >= last) return out;
    mo += 1;
    if (mo === 12) {
      mo = 0;
      y += 1;
    }
  }
}

/** Splits an inclusive range into calendar-month chunks (one bucket each). */
export function monthChunks(since: number, until: number): { since: number; until: number; month: string }[] {
  const chunks: { since: number; until: number; month: string }[] = [];
  let from = since;
  while (from <= until) {
    const d = new Date(from * DAY_MS);
    const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / DAY_MS;
    const to = Math.min(until, nextMonth - 1);
    chunks.push({ since: from, until: to, month: monthOf(from) });
    from = to + 1;
  }
  return chunks;
}
