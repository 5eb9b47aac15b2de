import type { NetworkCode, NetworkPostFormat, NetworkPostType } from '@social/networks';
import type { AccountStats } from './audience.rules';
import { type DayNumber, DAY_MS, dayToIso } from './dates';
import { pick, unit } from './hash';

/** A post of an account's past, made up from the seed on every read instead of being stored. */
export interface HistoryPost {
  id: string;
  type: NetworkPostType;
  format: NetworkPostFormat;
  caption: string;
  publishedAtMs: number;
}

type Mix = readonly [NetworkPostType, NetworkPostFormat, number][];

// What each kind of network carries, with weights.
const MIX: Record<NetworkCode, Mix> = {
  generalNet: [
    ['FEED', 'IMAGE', 35],
    ['FEED', 'TEXT', 15],
    ['FEED', 'VIDEO', 15],
    ['FEED', 'CAROUSEL', 10],
    ['REEL', 'VIDEO', 10],
    ['TEMP', 'IMAGE', 10],
    ['ADS', 'IMAGE', 5],
  ],
  photoNet: [
    ['FEED', 'IMAGE', 40],
    ['FEED', 'CAROUSEL', 20],
    ['REEL', 'VIDEO', 25],
    ['TEMP', 'IMAGE', 10],
    ['TEMP', 'VIDEO', 5],
  ],
  photoNetV2: [
    ['FEED', 'IMAGE', 40],
    ['FEED', 'CAROUSEL', 20],
    ['REEL', 'VIDEO', 25],
    ['TEMP', 'IMAGE', 10],
    ['TEMP', 'VIDEO', 5],
  ],
  professionalNet: [
    ['FEED', 'TEXT', 30],
    ['FEED', 'IMAGE', 35],
    ['FEED', 'VIDEO', 15],
    ['FEED', 'CAROUSEL', 20],
  ],
  shortVideoNet: [
    ['REEL', 'VIDEO', 85],
    ['FEED', 'CAROUSEL', 15],
  ],
  conversationNet: [
    ['FEED', 'TEXT', 60],
    ['FEED', 'IMAGE', 30],
    ['FEED', 'CAROUSEL', 5],
    ['FEED', 'VIDEO', 5],
  ],
  listingNet: [
    ['FEED', 'TEXT', 40],
    ['FEED', 'IMAGE', 60],
  ],
  videoNet: [
    ['FEED', 'VIDEO', 70],
    ['REEL', 'VIDEO', 30],
  ],
  microblogNet: [
    ['FEED', 'TEXT', 70],
    ['FEED', 'IMAGE', 25],
    ['FEED', 'VIDEO', 5],
  ],
  adNet: [],
};

const OPENERS = [
  'New this week:',
  'Behind the scenes:',
  'Quick tip:',
  'We asked, you answered.',
  'Throwback to',
  'Big news!',
  'Weekend plans?',
  'Meet the team:',
  'Fresh from the studio:',
  'Thank you for',
];
const TOPICS = [
  'our autumn collection',
  'the making of our latest project',
  'five ways to start your morning right',
  'a day in the life of our crew',
  'the launch event',
  'your favourite customer stories',
  'what we learned this quarter',
  'a sneak peek at what comes next',
  '10,000 followers',
  'the community meetup',
];
const TAGS = ['#sandbox', '#behindthescenes', '#tips', '#community', '#launch', '#teamwork', '#inspiration'];

function pickWeighted(mix: Mix, ...parts: (string | number)[]): [NetworkPostType, NetworkPostFormat] {
  const total = mix.reduce((s, [, , w]) => s + w, 0);
  let r = unit(...parts) * total;
  for (const [type, format, w] of mix) {
    if (r < w) return [type, format];
    r -= w;
  }
  const last = mix[mix.length - 1]!;
  return [last[0], last[1]];
}

/** Posts of one day, earliest first: 0, 1 or 2 depending on the account's cadence. */
export function historyPostsOfDay(seed: string, net: NetworkCode, accountId: string, stats: AccountStats, day: DayNumber): HistoryPost[] {
  const mix = MIX[net];
  if (mix.length === 0 || day < stats.createdDay) return [];
  const count = Math.floor(stats.postsPerWeek / 7 + unit(seed, accountId, 'posts', day));
  const out: HistoryPost[] = [];
  for (let i = 0; i < count; i++) {
    const key = `${accountId}|${day}|${i}`;
    const [type, format] = pickWeighted(mix, seed, key, 'mix');
    // Business hours, UTC; the second post of a day comes later than the first.
    const minute = Math.floor((7 + i * 6) * 60 + unit(seed, key, 'time') * 6 * 60);
    const caption = `${pick(OPENERS, seed, key, 'o')} ${pick(TOPICS, seed, key, 't')} ${pick(TAGS, seed, key, 'g')}`;
    out.push({
      id: `${accountId}-${dayToIso(day).replace(/-/g, '')}-${i + 1}`,
      type,
      format,
      caption,
      publishedAtMs: day * DAY_MS + minute * 60_000 + Math.floor(unit(seed, key, 's') * 60) * 1000,
    });
  }
  return out;
}
