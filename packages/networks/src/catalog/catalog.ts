import { METRICS } from './metrics.catalog';
import { NETWORKS } from './networks.catalog';
import { NETWORK_CODES, type NetworkCode } from './network-codes';
import type { DeprecationState, MetricDefinition, MetricScope, NetworkInfo, PublishingTraits } from './types';

export function getNetwork(code: NetworkCode): NetworkInfo {
  return NETWORKS[code];
}

/** For untrusted input: undefined instead of a lookup on an arbitrary string. */
export function findNetwork(code: string): NetworkInfo | undefined {
  return (NETWORK_CODES as readonly string[]).includes(code) ? NETWORKS[code as NetworkCode] : undefined;
}

/** `{code, name}`: how a network appears in API responses (spec 2.1). */
export function networkRef(code: NetworkCode): { code: NetworkCode; name: string } {
  return { code, name: NETWORKS[code].name };
}

export const PUBLISHING_NETWORK_CODES: readonly NetworkCode[] = NETWORK_CODES.filter((c) => NETWORKS[c].publishing !== null);

/**
 * What a publisher needs to publish exactly once on a network: whether it keeps idempotency keys
 * (and for how long) and how long it may take to act on a request. Throws for a network that cannot
 * be published to (adNet): asking is a bug of the caller.
 */
export function publishingTraits(code: NetworkCode): PublishingTraits {
  const rules = NETWORKS[code].publishing;
  if (!rules) throw new Error(`${code} has no publishing`);
  return { idempotency: rules.idempotency, maxProcessingMs: rules.maxProcessingMs };
}

const byNetwork = new Map<NetworkCode, MetricDefinition[]>(NETWORK_CODES.map((c) => [c, []]));
const byCode = new Map<string, MetricDefinition>();
for (const m of METRICS) {
  byNetwork.get(m.net)!.push(m);
  byCode.set(m.code, m);
}

/** The metric catalog of a network, optionally of one scope; empty when insights are unsupported. */
export function metricsOf(code: NetworkCode, scope?: MetricScope): readonly MetricDefinition[] {
  const all = byNetwork.get(code) ?? [];
  return scope ? all.filter((m) => m.scope === scope) : all;
}

export function getMetric(code: string): MetricDefinition | undefined {
  return byCode.get(code);
}

/** What the network's API can actually return (spec 2.6: API-supported and not a formula). */
export function isServedMetric(m: MetricDefinition): boolean {
  return m.apiSupported && !m.formula;
}

export function deprecationStateOf(m: MetricDefinition, now: Date = new Date()): DeprecationState {
  if (!m.deprecatedAt) return 'active';
  return Date.parse(`${m.deprecatedAt}T00:00:00.000Z`) <= now.getTime() ? 'deprecated' : 'futureDeprecated';
}
