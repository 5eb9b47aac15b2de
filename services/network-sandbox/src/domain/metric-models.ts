import type { MetricDefinition } from '@social/networks';

/**
 * How the sandbox makes up each served metric. Daily metrics:
 * - `audience`: a running total proportional to the account's audience (followers, reviews);
 * - `audienceDelta`: day-over-day change of the audience (new followers), plus another metric's
 *   value where the network reports gross gains (`plus`);
 * - `activity`: events in the day, proportional to the audience, with weekday rhythm and noise;
 * - `level`: a value not tied to audience size (a score).
 * Post metrics are `activity` (final value proportional to the audience when published, reached
 * over the post's first days) or `level` (e.g. average watch time).
 */
export type DailyModel =
  | { kind: 'audience'; ratio: number }
  | { kind: 'audienceDelta'; plus?: string }
  | { kind: 'activity'; perAudience: number; decimals?: number }
  | { kind: 'level'; base: number; spread: number; decimals?: number };

export type PostModel =
  { kind: 'activity'; perAudience: number; videoOnly?: boolean } | { kind: 'level'; base: number; spread: number; videoOnly?: boolean };

// By metric name (the part after the prefix): the same name means the same thing on every network.
const DAILY: Record<string, DailyModel> = {
  'daily-page-fans': { kind: 'audience', ratio: 1 },
  'daily-followers': { kind: 'audience', ratio: 1 },
  'daily-subscribers': { kind: 'audience', ratio: 1 },
  'daily-reviews': { kind: 'audience', ratio: 0.04 },
  'daily-total-views': { kind: 'audience', ratio: 60 },
  'daily-page-new-fans': { kind: 'audienceDelta' },
  'daily-new-followers': { kind: 'audienceDelta' },
  'daily-subscribers-gained': { kind: 'audienceDelta', plus: 'daily-subscribers-lost' },
  'daily-subscribers-lost': { kind: 'activity', perAudience: 0.0003 },
  'daily-page-impressions': { kind: 'activity', perAudience: 0.35 },
  'daily-page-impressions-organic': { kind: 'activity', perAudience: 0.25 },
  'daily-page-reach': { kind: 'activity', perAudience: 0.18 },
  'daily-page-engaged-users': { kind: 'activity', perAudience: 0.02 },
  'daily-page-views': { kind: 'activity', perAudience: 0.01 },
  'daily-page-video-views': { kind: 'activity', perAudience: 0.05 },
  'daily-page-consumptions': { kind: 'activity', perAudience: 0.015 },
  'daily-impressions': { kind: 'activity', perAudience: 0.4 },
  'daily-unique-impressions': { kind: 'activity', perAudience: 0.25 },
  'daily-reach': { kind: 'activity', perAudience: 0.2 },
  'daily-views': { kind: 'activity', perAudience: 0.45 },
  'daily-video-views': { kind: 'activity', perAudience: 0.5 },
  'daily-profile-views': { kind: 'activity', perAudience: 0.01 },
  'daily-website-clicks': { kind: 'activity', perAudience: 0.002 },
  'daily-accounts-engaged': { kind: 'activity', perAudience: 0.015 },
  'daily-clicks': { kind: 'activity', perAudience: 0.006 },
  'daily-likes': { kind: 'activity', perAudience: 0.03 },
  'daily-comments': { kind: 'activity', perAudience: 0.003 },
  'daily-shares': { kind: 'activity', perAudience: 0.002 },
  'daily-replies': { kind: 'activity', perAudience: 0.004 },
  'daily-reposts': { kind: 'activity', perAudience: 0.002 },
  'daily-quotes': { kind: 'activity', perAudience: 0.0008 },
  'daily-watch-time': { kind: 'activity', perAudience: 40 },
  'daily-impressions-maps': { kind: 'activity', perAudience: 0.08 },
  'daily-impressions-search': { kind: 'activity', perAudience: 0.12 },
  'daily-call-clicks': { kind: 'activity', perAudience: 0.002 },
  'daily-direction-requests': { kind: 'activity', perAudience: 0.004 },
  'daily-conversations': { kind: 'activity', perAudience: 0.0005 },
  'daily-queries-direct': { kind: 'activity', perAudience: 0.03 },
  'daily-queries-indirect': { kind: 'activity', perAudience: 0.06 },
};

// adNet audiences are reach potential, not followers: its ratios differ from organic ones.
const DAILY_BY_CODE: Record<string, DailyModel> = {
  'ad-daily-impressions': { kind: 'activity', perAudience: 0.05 },
  'ad-daily-reach': { kind: 'activity', perAudience: 0.03 },
  'ad-daily-clicks': { kind: 'activity', perAudience: 0.0008 },
  'ad-daily-unique-clicks': { kind: 'activity', perAudience: 0.0006 },
  'ad-daily-spend': { kind: 'activity', perAudience: 0.0004, decimals: 2 },
  'ad-daily-conversions': { kind: 'activity', perAudience: 0.00005 },
  'ad-daily-video-views': { kind: 'activity', perAudience: 0.01 },
  'ad-daily-relevance-score': { kind: 'level', base: 6, spread: 3, decimals: 1 },
};

const POST: Record<string, PostModel> = {
  'post-likes': { kind: 'activity', perAudience: 0.03 },
  'post-comments': { kind: 'activity', perAudience: 0.003 },
  'post-shares': { kind: 'activity', perAudience: 0.002 },
  'post-saved': { kind: 'activity', perAudience: 0.004 },
  'post-reach': { kind: 'activity', perAudience: 0.25 },
  'post-impressions': { kind: 'activity', perAudience: 0.35 },
  'post-unique-impressions': { kind: 'activity', perAudience: 0.2 },
  'post-views': { kind: 'activity', perAudience: 0.4 },
  'post-clicks': { kind: 'activity', perAudience: 0.01 },
  'post-video-views': { kind: 'activity', perAudience: 0.15, videoOnly: true },
  'post-video-plays': { kind: 'activity', perAudience: 0.3, videoOnly: true },
  'post-replies': { kind: 'activity', perAudience: 0.004 },
  'post-reposts': { kind: 'activity', perAudience: 0.002 },
  'post-quotes': { kind: 'activity', perAudience: 0.0008 },
  'post-dislikes': { kind: 'activity', perAudience: 0.0008 },
  'post-subscribers-gained': { kind: 'activity', perAudience: 0.0005 },
  'post-total-watch-time': { kind: 'activity', perAudience: 3, videoOnly: true },
  'post-watch-time': { kind: 'activity', perAudience: 60, videoOnly: true },
  'post-average-watch-time': { kind: 'level', base: 14, spread: 10, videoOnly: true },
  'post-average-view-duration': { kind: 'level', base: 180, spread: 120, videoOnly: true },
};

// Short videos travel far beyond the followers; long videos a bit less.
const POST_BY_CODE: Record<string, PostModel> = {
  'sv-post-views': { kind: 'activity', perAudience: 1.2 },
  'sv-post-reach': { kind: 'activity', perAudience: 0.9 },
  'vd-post-views': { kind: 'activity', perAudience: 0.5 },
};

export function dailyModelOf(m: MetricDefinition): DailyModel | undefined {
  return DAILY_BY_CODE[m.code] ?? DAILY[m.name];
}

export function postModelOf(m: MetricDefinition): PostModel | undefined {
  return POST_BY_CODE[m.code] ?? POST[m.name];
}
