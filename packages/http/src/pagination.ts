import { ErrorDetail, validationError } from '@social/errors';

export const DEFAULT_TAKE = 20;
export const MAX_TAKE = 100;

export interface Page {
  skip: number;
  take: number;
}

const INTEGER = /^\d+$/;

/**
 * skip/take as docs/decisions/0005-paging.md decides: take 20 by default, 1..100; skip >= 0. Problems are added
 * to `details` when given (so a handler reports every bad parameter at once), otherwise thrown as 400.
 */
export function parsePage(query: Record<string, unknown>, details?: ErrorDetail[]): Page {
  const page: Page = { skip: 0, take: DEFAULT_TAKE };
  const problems: ErrorDetail[] = details ?? [];
  for (const key of ['skip', 'take'] as const) {
    const raw = query[key];
    if (raw === undefined || raw === '') continue;
    if (typeof raw !== 'string' || !INTEGER.test(raw)) {
      problems.push({ path: `/query/${key}`, message: 'must be a non-negative integer' });
      continue;
    }
    const n = Number(raw);
    if (key === 'take' && (n < 1 || n > MAX_TAKE)) {
      problems.push({ path: '/query/take', message: `must be between 1 and ${MAX_TAKE}` });
      continue;
    }
    if (!Number.isSafeInteger(n)) {
      problems.push({ path: `/query/${key}`, message: 'is too large' });
      continue;
    }
    page[key] = n;
  }
  if (!details && problems.length > 0) throw validationError(problems);
  return page;
}

/** Splits a comma-separated query value; empty parts are dropped. */
export function csv(raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
