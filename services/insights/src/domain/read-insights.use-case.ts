import { validationError } from '@social/errors';
import {
  deprecationStateOf,
  getNetwork,
  isNetworkCode,
  metricsOf,
  type MetricDefinition,
  type MetricScope,
  type NetworkCode,
  type NetworkInfo,
} from '@social/networks';
import {
  targetKey,
  type DailyInsightsStore,
  type PostInsightsStore,
  type ProfileDirectory,
  type PublishedPostsDirectory,
  type TargetKind,
} from './ports';
import { DAY_MS } from './dates';
import { competitorNotFound, insightsNotSupported, profileNotFound } from './insights.errors';
import { parseInsightsQuery } from './insights-query';
import { requestableMetrics, selectMetrics, type Audience, type Notes } from './metric-selection';

export interface Insight {
  metric: string;
  value: number;
  type: 'NUMBER';
}
export interface DailyItem {
  date: string;
  insights: Insight[];
}
export interface PostItem {
  id: string;
  picture: string | null;
  type: string;
  format: string;
  url: string;
  caption: string;
  publishedAt: string;
  insights: Insight[];
}
export interface FormB<T> {
  hasMore: boolean;
  items: T[];
  total: number;
  notes?: Notes;
}
export interface PostInsightsPage extends FormB<PostItem> {
  aggregate?: { metric: string; value: number }[];
}
export interface CatalogItem {
  metric: string;
  name: string;
  scope: MetricScope;
  valueKind: string;
  apiSupported: boolean;
  formula: boolean;
  public: boolean;
  /** Whether this endpoint's insights can be asked for it (served, and public for competitors). */
  available: boolean;
  deprecationState: 'ACTIVE' | 'DEPRECATED' | 'FUTURE_DEPRECATED';
  deprecatedAt: string | null;
  deprecationArticle: string | null;
}

interface Target {
  kind: TargetKind;
  id: string;
  net: NetworkCode;
  network: NetworkInfo;
}

const audienceOf = (kind: TargetKind): Audience => (kind === 'profile' ? 'own' : 'competitor');

/** The read side: every answer comes from stored buckets; the network is never called here. */
export class ReadInsights {
  constructor(
    private readonly profiles: ProfileDirectory,
    private readonly published: PublishedPostsDirectory,
    private readonly daily: DailyInsightsStore,
    private readonly posts: PostInsightsStore,
    private readonly now: () => number = Date.now,
  ) {}

  async dailyInsights(ws: string, kind: TargetKind, id: string, rawQuery: Record<string, unknown>): Promise<FormB<DailyItem>> {
    const q = parseInsightsQuery(rawQuery, { posts: false, now: this.now() });
    const target = await this.resolve(ws, kind, id);
    if (!target.network.insights.daily) throw insightsNotSupported(target.network.name, 'daily insights');
    const { metrics, notes } = selectMetrics(target.net, 'daily', audienceOf(kind), q.metrics, new Date(this.now()));

    const days = await this.daily.readRange(ws, targetKey(kind, id), q.since, q.until);
    const items: DailyItem[] = [];
    for (const d of days) {
      const insights = insightsOf(metrics, d.values);
      // A day without any requested value (e.g. only deprecated metrics after their date) is no item.
      if (insights.length > 0) items.push({ date: new Date(d.day * DAY_MS).toISOString(), insights });
    }
    const { skip, take } = q.page;
    return formB(items.slice(skip, skip + take), skip, items.length, notes);
  }

  async postInsights(ws: string, kind: TargetKind, id: string, rawQuery: Record<string, unknown>): Promise<PostInsightsPage> {
    const q = parseInsightsQuery(rawQuery, { posts: true, now: this.now() });
    if (kind === 'competitor' && q.labelIds) {
      throw validationError([
        { path: '/query/labelIds', message: 'labels are on posts published through us: only own profiles can filter by them' },
      ]);
    }
    const target = await this.resolve(ws, kind, id);
    if (!target.network.insights.posts) throw insightsNotSupported(target.network.name, 'post insights');
    const { metrics, notes } = selectMetrics(target.net, 'post', audienceOf(kind), q.metrics, new Date(this.now()));

    let stored = await this.posts.readRange(ws, targetKey(kind, id), q.since, q.until);
    if (q.labelIds) {
      const ids = await this.published.networkPostIdsWithLabels(ws, id, q.labelIds);
      stored = stored.filter((p) => ids.has(p.id));
    }
    const { skip, take } = q.page;
    const items = stored.slice(skip, skip + take).map((p) => ({
      id: p.id,
      picture: p.picture,
      type: p.type,
      format: p.format,
      url: p.url,
      caption: p.caption,
      publishedAt: p.publishedAt,
      insights: insightsOf(metrics, p.v),
    }));
    const result: PostInsightsPage = formB(items, skip, stored.length, notes);
    if (q.aggregate) {
      result.aggregate = metrics.map((m) => ({ metric: m.code, value: stored.reduce((sum, p) => sum + (p.v[m.code] ?? 0), 0) }));
    }
    return result;
  }

  async metricCatalog(ws: string, kind: TargetKind, id: string, rawQuery: Record<string, unknown>): Promise<FormB<CatalogItem>> {
    const scope = rawQuery['scope'];
    if (scope !== undefined && scope !== 'daily' && scope !== 'post') {
      throw validationError([{ path: '/query/scope', message: 'must be daily or post' }]);
    }
    const target = await this.resolve(ws, kind, id);
    const { insights } = target.network;
    if (!insights.daily && !insights.posts) throw insightsNotSupported(target.network.name, 'insights');
    const audience = audienceOf(kind);
    const now = new Date(this.now());
    const requestable = new Set(
      (['daily', 'post'] as const)
        .filter((s) => (s === 'daily' ? insights.daily : insights.posts))
        .flatMap((s) => requestableMetrics(target.net, s, audience).map((m) => m.code)),
    );
    const items = metricsOf(target.net, scope as MetricScope | undefined)
      .filter((m) => audience === 'own' || m.public)
      .map((m) => catalogItem(m, requestable.has(m.code), now));
    return { hasMore: false, items, total: items.length };
  }

  private async resolve(ws: string, kind: TargetKind, id: string): Promise<Target> {
    const found = kind === 'profile' ? await this.profiles.getProfile(ws, id) : await this.profiles.getCompetitor(ws, id);
    if (!found) throw kind === 'profile' ? profileNotFound() : competitorNotFound();
    if (!isNetworkCode(found.net)) throw insightsNotSupported(found.net, 'insights');
    return { kind, id, net: found.net, network: getNetwork(found.net) };
  }
}

function insightsOf(metrics: MetricDefinition[], values: Record<string, number>): Insight[] {
  const out: Insight[] = [];
  for (const m of metrics) {
    const v = values[m.code];
    if (typeof v === 'number') out.push({ metric: m.code, value: v, type: 'NUMBER' });
  }
  return out;
}

function formB<T>(items: T[], skip: number, total: number, notes: Notes | undefined): FormB<T> {
  return { hasMore: skip + items.length < total, items, total, ...(notes ? { notes } : {}) };
}

function catalogItem(m: MetricDefinition, available: boolean, now: Date): CatalogItem {
  const state = deprecationStateOf(m, now);
  return {
    metric: m.code,
    name: m.label,
    scope: m.scope,
    valueKind: m.valueKind,
    apiSupported: m.apiSupported,
    formula: m.formula,
    public: m.public,
    available,
    deprecationState: state === 'active' ? 'ACTIVE' : state === 'deprecated' ? 'DEPRECATED' : 'FUTURE_DEPRECATED',
    deprecatedAt: m.deprecatedAt ? `${m.deprecatedAt}T00:00:00.000Z` : null,
    deprecationArticle: m.deprecationArticle ?? null,
  };
}
