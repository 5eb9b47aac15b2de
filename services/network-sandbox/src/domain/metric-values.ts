import type { MetricDefinition } from '@social/networks';
import { type AccountStats, audienceOn } from './audience.rules';
import { type DayNumber, DAY_MS } from './dates';
import { unit } from './hash';
import { dailyModelOf, postModelOf } from './metric-models';

// Fewer posts and visits at weekends (index 0 = Sunday).
const WEEKDAY = [0.82, 1.04, 1.1, 1.12, 1.06, 0.98, 0.86];

export interface AccountKey {
  seed: string;
  accountId: string;
  stats: AccountStats;
}

const round = (v: number, decimals = 0) => {
  const f = 10 ** decimals;
  return Math.max(0, Math.round(v * f) / f);
};

/** The value of a daily metric on a day; undefined when the sandbox has no model for it. */
export function dailyValue(acct: AccountKey, metric: MetricDefinition, day: DayNumber): number | undefined {
  const model = dailyModelOf(metric);
  if (!model) return undefined;
  const audience = (d: DayNumber) => audienceOn(acct.seed, acct.accountId, acct.stats, d);
  switch (model.kind) {
    case 'audience':
      return Math.floor(audience(day) * model.ratio);
    case 'audienceDelta': {
      const gain = Math.max(0, audience(day) - audience(day - 1));
      // Gross gains: the net change plus what was lost the same day (same noise as that metric).
      const plusCode = model.plus ? metric.code.slice(0, metric.code.length - metric.name.length) + model.plus : '';
      const extra = model.plus ? (dailyValue(acct, { ...metric, name: model.plus!, code: plusCode }, day) ?? 0) : 0;
      return gain + extra;
    }
    case 'activity': {
      const noise = 0.6 + 0.8 * unit(acct.seed, acct.accountId, metric.code, day);
      const weekday = WEEKDAY[new Date(day * DAY_MS).getUTCDay()]!;
      return round(audience(day) * model.perAudience * weekday * noise, model.decimals);
    }
    case 'level':
      return round(model.base + model.spread * (unit(acct.seed, acct.accountId, metric.code, day) - 0.5), model.decimals);
  }
}

/** Share of a post's final numbers reached at an age: fast at first, complete after three weeks. */
export function lifetimeShare(ageMs: number): number {
  if (ageMs <= 0) return 0;
  const hours = ageMs / 3_600_000;
  return hours >= 21 * 24 ? 1 : 1 - Math.exp(-hours / 18);
}

export interface PostKey {
  id: string;
  publishedAtMs: number;
  isVideo: boolean;
}

/**
 * The value of a post metric observed at `asOfMs`. A post-wide "reception" factor makes a post
 * that does well do well on every metric; each metric adds its own small noise.
 */
export function postValue(acct: AccountKey, post: PostKey, metric: MetricDefinition, asOfMs: number): number | undefined {
  const model = postModelOf(metric);
  if (!model) return undefined;
  if (model.videoOnly && !post.isVideo) return 0;
  const age = asOfMs - post.publishedAtMs;
  if (age <= 0) return 0;
  const own = unit(acct.seed, post.id, metric.code);
  if (model.kind === 'level') return round(model.base + model.spread * (own - 0.5));
  const audience = audienceOn(acct.seed, acct.accountId, acct.stats, Math.floor(post.publishedAtMs / DAY_MS));
  const viral = unit(acct.seed, post.id, 'viral') > 0.95 ? 4 * unit(acct.seed, post.id, 'viral-size') : 0;
  const reception = 0.3 + 1.7 * unit(acct.seed, post.id, 'reception') + viral;
  return round(audience * model.perAudience * reception * (0.85 + 0.3 * own) * lifetimeShare(age));
}
