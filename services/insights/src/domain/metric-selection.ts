import { validationError, type ErrorDetail } from '@social/errors';
import {
  deprecationStateOf,
  getNetwork,
  isServedMetric,
  metricsOf,
  type MetricDefinition,
  type MetricScope,
  type NetworkCode,
} from '@social/networks';

/** Whose insights: own profiles see every served metric, competitors only public ones (spec 4.2). */
export type Audience = 'own' | 'competitor';

export interface DeprecationNote {
  message: string;
  metrics: { metric: string; deprecatedAt: string; deprecationArticle: string }[];
}

/** Spec 2.6: present only when deprecated or soon-deprecated metrics were requested. */
export interface Notes {
  metricsDeprecated?: DeprecationNote;
  futureDeprecatedMetrics?: DeprecationNote;
}

export interface MetricSelection {
  metrics: MetricDefinition[];
  notes: Notes | undefined;
}

/** Metrics a caller may request on this endpoint: served by the API, and public for competitors. */
export function requestableMetrics(net: NetworkCode, scope: MetricScope, audience: Audience): MetricDefinition[] {
  return metricsOf(net, scope).filter((m) => isServedMetric(m) && (audience === 'own' || m.public));
}

/**
 * Turns the `metrics` parameter into metric definitions, rejecting every code that cannot be served
 * with the reason (all problems at once). Without the parameter: every requestable metric that is
 * not deprecated yet.
 */
export function selectMetrics(
  net: NetworkCode,
  scope: MetricScope,
  audience: Audience,
  requested: string[] | undefined,
  now = new Date(),
): MetricSelection {
  const valid = requestableMetrics(net, scope, audience);
  if (requested === undefined || requested.length === 0) {
    const metrics = valid.filter((m) => deprecationStateOf(m, now) !== 'deprecated');
    return { metrics, notes: notesFor(metrics, now) };
  }
  const catalog = new Map(metricsOf(net).map((m) => [m.code, m]));
  const validCodes = valid.map((m) => m.code).join(', ');
  const networkName = getNetwork(net).name;
  const otherPath = scope === 'daily' ? '/insights/posts' : '/insights';
  const problems: ErrorDetail[] = [];
  const metrics: MetricDefinition[] = [];
  const seen = new Set<string>();
  for (const code of requested) {
    if (seen.has(code)) continue;
    seen.add(code);
    const m = catalog.get(code);
    let problem: string | undefined;
    if (!m) problem = `unknown metric "${code}" for ${networkName}; valid metrics: ${validCodes}`;
    else if (m.scope !== scope) problem = `"${code}" is a ${m.scope} metric; request it from ${otherPath}`;
    else if (m.formula) problem = `"${code}" is a formula (calculated) metric; formula metrics are not supported`;
    else if (!m.apiSupported) problem = `"${code}" is not available through the network's API (not API-supported)`;
    else if (audience === 'competitor' && !m.public) {
      problem = `"${code}" is not public; competitor insights are limited to public metrics: ${validCodes}`;
    }
    if (problem) problems.push({ path: '/query/metrics', message: problem });
    else metrics.push(m!);
  }
  if (problems.length > 0) throw validationError(problems, 'Some requested metrics cannot be served.');
  return { metrics, notes: notesFor(metrics, now) };
}

function notesFor(metrics: MetricDefinition[], now: Date): Notes | undefined {
  const entry = (m: MetricDefinition) => ({
    metric: m.code,
    deprecatedAt: `${m.deprecatedAt}T00:00:00.000Z`,
    deprecationArticle: m.deprecationArticle ?? '',
  });
  const deprecated = metrics.filter((m) => deprecationStateOf(m, now) === 'deprecated');
  const future = metrics.filter((m) => deprecationStateOf(m, now) === 'futureDeprecated');
  if (deprecated.length === 0 && future.length === 0) return undefined;
  const notes: Notes = {};
  if (deprecated.length > 0) {
    notes.metricsDeprecated = {
      message: 'These metrics are deprecated by the network: they have no values from their deprecation date on.',
      metrics: deprecated.map(entry),
    };
  }
  if (future.length > 0) {
    notes.futureDeprecatedMetrics = {
      message: 'These metrics will be deprecated by the network: they will have no values from that date on.',
      metrics: future.map(entry),
    };
  }
  return notes;
}
