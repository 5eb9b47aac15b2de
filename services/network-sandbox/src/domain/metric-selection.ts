import { validationError } from '@social/errors';
import { getMetric, type MetricDefinition, type MetricScope, type NetworkCode, type UnavailableMetric } from '@social/networks';

export interface MetricSelection {
  served: MetricDefinition[];
  unavailable: UnavailableMetric[];
}

/**
 * Splits the requested codes into what the API serves and what it cannot (with the reason), the
 * way real networks answer partial requests. Codes that are not metrics of this network and scope
 * are a bad request.
 */
export function selectMetrics(net: NetworkCode, scope: MetricScope, codes: string[], reader: 'own' | 'public'): MetricSelection {
  if (codes.length === 0) throw validationError([{ path: '/query/metrics', message: 'name at least one metric' }]);
  const unknown = codes.filter((c) => {
    const m = getMetric(c);
    return !m || m.net !== net || m.scope !== scope;
  });
  if (unknown.length > 0) {
    throw validationError(unknown.map((c) => ({ path: '/query/metrics', message: `${c} is not a ${scope} metric of ${net}` })));
  }
  const out: MetricSelection = { served: [], unavailable: [] };
  for (const code of new Set(codes)) {
    const m = getMetric(code)!;
    if (m.formula) out.unavailable.push({ metric: code, reason: 'FORMULA' });
    else if (!m.apiSupported) out.unavailable.push({ metric: code, reason: 'NOT_API_SUPPORTED' });
    else if (reader === 'public' && !m.public) out.unavailable.push({ metric: code, reason: 'NOT_PUBLIC' });
    else out.served.push(m);
  }
  return out;
}

/** A deprecated metric has no data from its deprecation date on. */
export function servedAt(m: MetricDefinition, ms: number): boolean {
  return !m.deprecatedAt || ms < Date.parse(`${m.deprecatedAt}T00:00:00.000Z`);
}
