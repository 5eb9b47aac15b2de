import type { NetworkCode } from './network-codes';
import type { MetricDefinition, MetricScope, MetricValueKind } from './types';

// Metric codes per network. The spec (2.6) fixes the form `<prefix>-<name>` and a few examples
// (`-post-likes`, `-daily-page-fans`, ...) and leaves the complete list "not shown"; these lists are
// ours, modelled on what the kind of network reports. Deprecation articles live in our own docs.

const DOCS = 'https://docs.social-api.dev/deprecations';

interface Spec {
  name: string;
  label: string;
  kind?: MetricValueKind;
  /** Shorthands: `formula` is never API-supported; `noApi` is a metric only the network's UI shows. */
  formula?: boolean;
  noApi?: boolean;
  public?: boolean;
  deprecatedAt?: string;
}

function build(net: NetworkCode, prefix: string, scope: MetricScope, specs: Spec[]): MetricDefinition[] {
  return specs.map((s) => {
    const code = `${prefix}-${s.name}`;
    const def: MetricDefinition = {
      code,
      net,
      scope,
      name: s.name,
      label: s.label,
      valueKind: s.kind ?? (s.formula ? 'percent' : 'count'),
      apiSupported: !s.formula && !s.noApi,
      formula: s.formula ?? false,
      public: s.public ?? false,
    };
    if (s.deprecatedAt) {
      def.deprecatedAt = s.deprecatedAt;
      def.deprecationArticle = `${DOCS}/${code}`;
    }
    return def;
  });
}

const generalNet = [
  ...build('generalNet', 'gn', 'daily', [
    { name: 'daily-page-fans', label: 'Page fans', kind: 'total', public: true },
    { name: 'daily-page-new-fans', label: 'New page fans' },
    { name: 'daily-page-impressions', label: 'Page impressions' },
    { name: 'daily-page-reach', label: 'Page reach' },
    { name: 'daily-page-engaged-users', label: 'Engaged users' },
    { name: 'daily-page-views', label: 'Page views' },
    { name: 'daily-page-video-views', label: 'Video views' },
    { name: 'daily-page-impressions-organic', label: 'Organic impressions', deprecatedAt: '2024-03-14' },
    { name: 'daily-page-consumptions', label: 'Page consumptions', deprecatedAt: '2027-09-30' },
    { name: 'daily-page-engagement-rate', label: 'Engagement rate', formula: true },
    { name: 'daily-page-fans-by-country', label: 'Fans by country', noApi: true },
  ]),
  ...build('generalNet', 'gn', 'post', [
    { name: 'post-likes', label: 'Likes', public: true },
    { name: 'post-comments', label: 'Comments', public: true },
    { name: 'post-shares', label: 'Shares', public: true },
    { name: 'post-reach', label: 'Reach' },
    { name: 'post-impressions', label: 'Impressions' },
    { name: 'post-clicks', label: 'Clicks' },
    { name: 'post-video-views', label: 'Video views' },
    { name: 'post-engagement-rate', label: 'Engagement rate', formula: true },
    { name: 'post-interactions', label: 'Interactions', kind: 'count', formula: true, public: true },
    { name: 'post-negative-feedback', label: 'Negative feedback', noApi: true },
  ]),
];

const photoNet = [
  ...build('photoNet', 'pn', 'daily', [
    { name: 'daily-followers', label: 'Followers', kind: 'total', public: true },
    { name: 'daily-new-followers', label: 'New followers' },
    { name: 'daily-impressions', label: 'Impressions', deprecatedAt: '2025-04-21' },
    { name: 'daily-reach', label: 'Reach' },
    { name: 'daily-profile-views', label: 'Profile views' },
    { name: 'daily-website-clicks', label: 'Website clicks' },
    { name: 'daily-accounts-engaged', label: 'Accounts engaged' },
    { name: 'daily-engagement-rate', label: 'Engagement rate', formula: true },
    { name: 'daily-email-contacts', label: 'Email contacts', noApi: true },
  ]),
  ...build('photoNet', 'pn', 'post', [
    { name: 'post-likes', label: 'Likes', public: true },
    { name: 'post-comments', label: 'Comments', public: true },
    { name: 'post-saved', label: 'Saves' },
    { name: 'post-shares', label: 'Shares' },
    { name: 'post-reach', label: 'Reach' },
    { name: 'post-views', label: 'Views' },
    { name: 'post-impressions', label: 'Impressions', deprecatedAt: '2025-04-21' },
    { name: 'post-video-plays', label: 'Video plays', deprecatedAt: '2027-06-30' },
    { name: 'post-engagement-rate', label: 'Engagement rate', formula: true },
    { name: 'post-interactions', label: 'Interactions', kind: 'count', formula: true },
    { name: 'post-profile-visits', label: 'Profile visits', noApi: true },
  ]),
];

// The second integration reads the same network through the newer API: `views` replaced impressions.
const photoNetV2 = [
  ...build('photoNetV2', 'pn2', 'daily', [
    { name: 'daily-followers', label: 'Followers', kind: 'total', public: true },
    { name: 'daily-new-followers', label: 'New followers' },
    { name: 'daily-views', label: 'Views' },
    { name: 'daily-reach', label: 'Reach' },
    { name: 'daily-profile-views', label: 'Profile views' },
    { name: 'daily-website-clicks', label: 'Website clicks' },
    { name: 'daily-accounts-engaged', label: 'Accounts engaged' },
    { name: 'daily-engagement-rate', label: 'Engagement rate', formula: true },
    { name: 'daily-follower-demographics', label: 'Follower demographics', noApi: true },
  ]),
  ...build('photoNetV2', 'pn2', 'post', [
    { name: 'post-likes', label: 'Likes', public: true },
    { name: 'post-comments', label: 'Comments', public: true },
    { name: 'post-saved', label: 'Saves' },
    { name: 'post-shares', label: 'Shares' },
    { name: 'post-reach', label: 'Reach' },
    { name: 'post-views', label: 'Views' },
    { name: 'post-engagement-rate', label: 'Engagement rate', formula: true },
    { name: 'post-story-replies', label: 'Story replies', noApi: true },
  ]),
];

const professionalNet = [
  ...build('professionalNet', 'pro', 'daily', [
    { name: 'daily-followers', label: 'Followers', kind: 'total', public: true },
    { name: 'daily-new-followers', label: 'New followers' },
    { name: 'daily-impressions', label: 'Impressions' },
    { name: 'daily-unique-impressions', label: 'Unique impressions' },
    { name: 'daily-clicks', label: 'Clicks' },
    { name: 'daily-page-views', label: 'Page views', deprecatedAt: '2028-03-31' },
    { name: 'daily-engagement-rate', label: 'Engagement rate', formula: true },
    { name: 'daily-visitor-demographics', label: 'Visitor demographics', noApi: true },
  ]),
  ...build('professionalNet', 'pro', 'post', [
    { name: 'post-likes', label: 'Reactions', public: true },
    { name: 'post-comments', label: 'Comments', public: true },
    { name: 'post-shares', label: 'Reposts', public: true },
    { name: 'post-impressions', label: 'Impressions' },
    { name: 'post-unique-impressions', label: 'Unique impressions', deprecatedAt: '2024-06-30' },
    { name: 'post-clicks', label: 'Clicks' },
    { name: 'post-video-views', label: 'Video views' },
    { name: 'post-engagement-rate', label: 'Engagement rate', formula: true },
    { name: 'post-click-through-rate', label: 'Click-through rate', formula: true },
  ]),
];

const shortVideoNet = [
  ...build('shortVideoNet', 'sv', 'daily', [
    { name: 'daily-followers', label: 'Followers', kind: 'total', public: true },
    { name: 'daily-new-followers', label: 'New followers' },
    { name: 'daily-video-views', label: 'Video views' },
    { name: 'daily-profile-views', label: 'Profile views' },
    { name: 'daily-likes', label: 'Likes' },
    { name: 'daily-comments', label: 'Comments' },
    { name: 'daily-shares', label: 'Shares' },
    { name: 'daily-engagement-rate', label: 'Engagement rate', formula: true },
    { name: 'daily-audience-countries', label: 'Audience countries', noApi: true },
  ]),
  ...build('shortVideoNet', 'sv', 'post', [
    { name: 'post-views', label: 'Views', public: true },
    { name: 'post-likes', label: 'Likes', public: true },
    { name: 'post-comments', label: 'Comments', public: true },
    { name: 'post-shares', label: 'Shares', public: true },
    { name: 'post-reach', label: 'Reach' },
    { name: 'post-average-watch-time', label: 'Average watch time', kind: 'seconds' },
    { name: 'post-total-watch-time', label: 'Total watch time', kind: 'seconds' },
    { name: 'post-full-video-watched-rate', label: 'Watched to the end', formula: true },
    { name: 'post-engagement-rate', label: 'Engagement rate', formula: true },
  ]),
];

const conversationNet = [
  ...build('conversationNet', 'cv', 'daily', [
    { name: 'daily-followers', label: 'Followers', kind: 'total', public: true },
    { name: 'daily-views', label: 'Views' },
    { name: 'daily-likes', label: 'Likes' },
    { name: 'daily-replies', label: 'Replies' },
    { name: 'daily-reposts', label: 'Reposts' },
    { name: 'daily-quotes', label: 'Quotes' },
    { name: 'daily-engagement-rate', label: 'Engagement rate', formula: true },
    { name: 'daily-follower-demographics', label: 'Follower demographics', noApi: true },
  ]),
  ...build('conversationNet', 'cv', 'post', [
    { name: 'post-views', label: 'Views' },
    { name: 'post-likes', label: 'Likes', public: true },
    { name: 'post-replies', label: 'Replies', public: true },
    { name: 'post-reposts', label: 'Reposts', public: true },
    { name: 'post-quotes', label: 'Quotes' },
    { name: 'post-shares', label: 'Shares' },
    { name: 'post-engagement-rate', label: 'Engagement rate', formula: true },
  ]),
];

const listingNet = build('listingNet', 'ls', 'daily', [
  { name: 'daily-impressions-maps', label: 'Views on maps' },
  { name: 'daily-impressions-search', label: 'Views on search' },
  { name: 'daily-website-clicks', label: 'Website clicks' },
  { name: 'daily-call-clicks', label: 'Call clicks' },
  { name: 'daily-direction-requests', label: 'Direction requests' },
  { name: 'daily-conversations', label: 'Conversations' },
  { name: 'daily-reviews', label: 'Reviews', kind: 'total', public: true },
  { name: 'daily-queries-direct', label: 'Direct searches', deprecatedAt: '2023-03-31' },
  { name: 'daily-queries-indirect', label: 'Discovery searches', deprecatedAt: '2023-03-31' },
  { name: 'daily-total-interactions', label: 'Total interactions', formula: true },
  { name: 'daily-bookings', label: 'Bookings', noApi: true },
]);

const videoNet = [
  ...build('videoNet', 'vd', 'daily', [
    { name: 'daily-subscribers', label: 'Subscribers', kind: 'total', public: true },
    { name: 'daily-subscribers-gained', label: 'Subscribers gained' },
    { name: 'daily-subscribers-lost', label: 'Subscribers lost' },
    { name: 'daily-total-views', label: 'Channel views', kind: 'total', public: true },
    { name: 'daily-views', label: 'Views' },
    { name: 'daily-watch-time', label: 'Watch time', kind: 'seconds' },
    { name: 'daily-likes', label: 'Likes' },
    { name: 'daily-comments', label: 'Comments' },
    { name: 'daily-engagement-rate', label: 'Engagement rate', formula: true },
    { name: 'daily-estimated-revenue', label: 'Estimated revenue', kind: 'amount', noApi: true },
  ]),
  ...build('videoNet', 'vd', 'post', [
    { name: 'post-views', label: 'Views', public: true },
    { name: 'post-likes', label: 'Likes', public: true },
    { name: 'post-comments', label: 'Comments', public: true },
    { name: 'post-shares', label: 'Shares' },
    { name: 'post-watch-time', label: 'Watch time', kind: 'seconds' },
    { name: 'post-average-view-duration', label: 'Average view duration', kind: 'seconds' },
    { name: 'post-dislikes', label: 'Dislikes', deprecatedAt: '2021-12-13' },
    { name: 'post-subscribers-gained', label: 'Subscribers gained', deprecatedAt: '2027-12-31' },
    { name: 'post-engagement-rate', label: 'Engagement rate', formula: true },
  ]),
];

const adNet = build('adNet', 'ad', 'daily', [
  { name: 'daily-impressions', label: 'Impressions' },
  { name: 'daily-reach', label: 'Reach' },
  { name: 'daily-clicks', label: 'Clicks' },
  { name: 'daily-spend', label: 'Amount spent', kind: 'amount' },
  { name: 'daily-conversions', label: 'Conversions' },
  { name: 'daily-video-views', label: 'Video views' },
  { name: 'daily-unique-clicks', label: 'Unique clicks', deprecatedAt: '2027-03-31' },
  { name: 'daily-relevance-score', label: 'Relevance score', kind: 'amount', deprecatedAt: '2019-04-30' },
  { name: 'daily-ctr', label: 'Click-through rate', formula: true },
  { name: 'daily-cpc', label: 'Cost per click', kind: 'amount', formula: true },
  { name: 'daily-cpm', label: 'Cost per 1,000 impressions', kind: 'amount', formula: true },
  { name: 'daily-leads-quality', label: 'Lead quality', noApi: true },
]);

/** Every metric of every network; microblogNet has none (spec 4.2: insights not supported). */
export const METRICS: readonly MetricDefinition[] = [
  ...generalNet,
  ...photoNet,
  ...photoNetV2,
  ...professionalNet,
  ...shortVideoNet,
  ...conversationNet,
  ...listingNet,
  ...videoNet,
  ...adNet,
];
