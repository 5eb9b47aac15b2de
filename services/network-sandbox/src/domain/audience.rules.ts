import type { ProfileKind } from '@social/networks';
import { type DayNumber, parseDay } from './dates';
import { logUniform, unit } from './hash';

/** Day 0 of every growth curve; a fixed date keeps values stable whatever day the sandbox runs. */
export const ANCHOR_DAY: DayNumber = parseDay('2026-01-01')!;

export interface AccountStats {
  /** Audience (followers, subscribers, reach potential) on ANCHOR_DAY. */
  baseAudience: number;
  /** Exponential growth per day. */
  growthPerDay: number;
  /** The account exists from this day on: no metrics or posts before it. */
  createdDay: DayNumber;
  postsPerWeek: number;
}

const AUDIENCE: Record<ProfileKind, [number, number]> = {
  own: [800, 60_000],
  business: [5_000, 1_500_000],
  creator: [10_000, 3_000_000],
  personal: [40, 1_500],
};
const POSTS_PER_WEEK: Record<ProfileKind, [number, number]> = {
  own: [3, 10],
  business: [2, 12],
  creator: [4, 12],
  personal: [1, 4],
};

/** The hidden traits of an account, derived from the seed so a new seed gives a new world. */
export function statsOf(seed: string, accountId: string, kind: ProfileKind): AccountStats {
  const [amin, amax] = AUDIENCE[kind];
  const [pmin, pmax] = POSTS_PER_WEEK[kind];
  return {
    baseAudience: Math.round(logUniform(amin, amax, seed, accountId, 'audience')),
    growthPerDay: 0.0004 + 0.0021 * unit(seed, accountId, 'growth'),
    createdDay: ANCHOR_DAY - 400 - Math.floor(1100 * unit(seed, accountId, 'created')),
    postsPerWeek: pmin + (pmax - pmin) * unit(seed, accountId, 'cadence'),
  };
}

/**
 * Audience on a day: an exponential growth curve with a hash-based wobble of less than a day's
 * worth of growth, so the total never goes down from one day to the next (followers "grow day by
 * day") while day-to-day gains still vary. 0 before the account existed.
 */
export function audienceOn(seed: string, accountId: string, stats: AccountStats, day: DayNumber): number {
  if (day < stats.createdDay) return 0;
  const t = day - ANCHOR_DAY + 0.6 * unit(seed, accountId, 'wobble', day);
  return Math.floor(stats.baseAudience * Math.exp(stats.growthPerDay * t));
}
