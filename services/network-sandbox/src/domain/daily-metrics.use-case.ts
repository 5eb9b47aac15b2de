import { validationError } from '@social/errors';
import { type DailyMetricsResult, getNetwork, type NetworkCode } from '@social/networks';
import { checkRange, dayOfMs, dayStartMs, dayToIso } from './dates';
import { selectMetrics, servedAt } from './metric-selection';
import { dailyValue } from './metric-values';
import { requireAccount, type SandboxContext, underFailures } from './sandbox.context';
import { notSupported, profileNotFound } from './sandbox.errors';

export interface MetricsQuery {
  net: NetworkCode;
  accountId: string;
  token: string | undefined;
  since?: string;
  until?: string;
  metrics: string[];
  /** The moment the metrics are observed; now unless a test pins it. */
  asOfMs?: number;
}

/**
 * Daily account metrics, oldest day first. Days before the account existed or after today have no
 * entry; a deprecated metric has no value from its deprecation date on.
 */
export class ReadDailyMetrics {
  constructor(private readonly ctx: SandboxContext) {}

  async read(q: MetricsQuery): Promise<DailyMetricsResult> {
    const ctx = this.ctx;
    const network = getNetwork(q.net);
    if (!network.insights.daily) throw notSupported(`Daily insights on ${network.name}`);
    const account = requireAccount(ctx, q.net, q.accountId);
    const { range, problems } = checkRange(q.since, q.until);
    if (!range) throw validationError(problems);
    return underFailures(ctx, { operation: 'dailyMetrics', net: q.net, accountId: account.id }, async () => {
      const reader = await ctx.tokens.readerOf(account, q.token);
      if (reader === 'public' && account.kind === 'personal') throw profileNotFound(q.net, account.id);
      const { served, unavailable } = selectMetrics(q.net, 'daily', q.metrics, reader);
      const key = { seed: ctx.directory.seed, accountId: account.id, stats: account.stats };
      const first = Math.max(range.since, account.stats.createdDay);
      const last = Math.min(range.until, dayOfMs(q.asOfMs ?? ctx.now()));
      const days: DailyMetricsResult['days'] = [];
      for (let day = first; day <= last; day++) {
        const values: Record<string, number> = {};
        for (const m of served) {
          if (!servedAt(m, dayStartMs(day))) continue;
          const v = dailyValue(key, m, day);
          if (v !== undefined) values[m.code] = v;
        }
        if (Object.keys(values).length > 0) days.push({ date: dayToIso(day), values });
      }
      return { days, unavailable };
    });
  }
}
