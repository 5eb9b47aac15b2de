import { validationError, type ErrorDetail } from '@social/errors';
import { csv, parsePage, type Page } from '@social/http';
import { dayToIso, parseDay, todayDay } from './dates';

/** Without since/until: the last 30 days up to today (UTC). */
export const DEFAULT_RANGE_DAYS = 30;
/** A longer range is refused: a year plus a leap day, 13 month buckets at most. */
export const MAX_RANGE_DAYS = 366;
export const MAX_LABEL_IDS = 50;

export interface InsightsQuery {
  since: number;
  until: number;
  /** undefined: the default metric set of the network. */
  metrics: string[] | undefined;
  page: Page;
  labelIds: string[] | undefined;
  aggregate: boolean;
}

/**
 * since/until are inclusive YYYY-MM-DD days (UTC); until defaults to today, since to 29 days before
 * until. Every problem is reported at once as a 400.
 */
export function parseInsightsQuery(query: Record<string, unknown>, opts: { posts: boolean; now?: number }): InsightsQuery {
  const problems: ErrorDetail[] = [];
  const page = parsePage(query, problems);
  const day = (key: 'since' | 'until'): number | undefined => {
    const raw = query[key];
    if (raw === undefined || raw === '') return undefined;
    const parsed = typeof raw === 'string' ? parseDay(raw) : undefined;
    if (parsed === undefined) problems.push({ path: `/query/${key}`, message: 'must be a date in the form YYYY-MM-DD' });
    return parsed;
  };
  const givenSince = day('since');
  const givenUntil = day('until');
  const until = givenUntil ?? todayDay(opts.now);
  const since = givenSince ?? until - (DEFAULT_RANGE_DAYS - 1);
  if (since > until) {
    problems.push({ path: '/query/since', message: `must not be after until (${dayToIso(until)})` });
  } else if (until - since + 1 > MAX_RANGE_DAYS) {
    problems.push({ path: '/query/since', message: `the range may span at most ${MAX_RANGE_DAYS} days` });
  }
  const rawMetrics = query['metrics'];
  if (rawMetrics !== undefined && typeof rawMetrics !== 'string')
    problems.push({ path: '/query/metrics', message: 'must be given once, comma-separated' });
  const metrics = csv(rawMetrics);

  let labelIds: string[] | undefined;
  let aggregate = false;
  if (opts.posts) {
    const rawLabels = query['labelIds'];
    if (rawLabels !== undefined && typeof rawLabels !== 'string')
      problems.push({ path: '/query/labelIds', message: 'must be given once, comma-separated' });
    labelIds = csv(rawLabels);
    if (labelIds && rawLabels !== undefined && labelIds.length === 0) {
      problems.push({ path: '/query/labelIds', message: 'must name at least one label id' });
    } else if (labelIds && labelIds.length > MAX_LABEL_IDS) {
      problems.push({ path: '/query/labelIds', message: `may name at most ${MAX_LABEL_IDS} labels` });
    }
    const rawAggregate = query['aggregate'];
    if (rawAggregate !== undefined) {
      if (rawAggregate === 'true') aggregate = true;
      else if (rawAggregate !== 'false') problems.push({ path: '/query/aggregate', message: 'must be true or false' });
    }
  }
  if (problems.length > 0) throw validationError(problems);
  return { since, until, metrics: metrics && metrics.length > 0 ? [...new Set(metrics)] : undefined, page, labelIds, aggregate };
}
