/**
 * The minute bucket of a time, 'YYYY-MM-DDTHH:MM' (UTC): an equality key FerretDB pushes down, so
 * "what is due now" is a handful of indexed equality queries instead of a range scan.
 */
export const minuteOf = (t: Date | number): string => new Date(t).toISOString().slice(0, 16);

/** The buckets from `from` to `to`, oldest first (both included). */
export function minutesBetween(from: Date | number, to: Date | number): string[] {
  const out: string[] = [];
  const start = Math.floor(new Date(from).getTime() / 60000) * 60000;
  for (let t = start; t <= new Date(to).getTime(); t += 60000) out.push(minuteOf(t));
  return out;
}
