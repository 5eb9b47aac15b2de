import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

// Keyed on globalThis so two loaded copies of this package (a bundler, a test mapping sources and
// dist) still share one registry and one set of series per process.
const REGISTRY_KEY = Symbol.for('@social/metrics.registry');

type GlobalWithRegistry = typeof globalThis & { [REGISTRY_KEY]?: Registry };

/** The process's registry, created with the default Node metrics (CPU, memory, event loop, GC) on first use. */
export function metricsRegistry(): Registry {
  const g = globalThis as GlobalWithRegistry;
  let registry = g[REGISTRY_KEY];
  if (!registry) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
    g[REGISTRY_KEY] = registry;
  }
  return registry;
}

/** The text exposition of every series, as served on GET /metrics. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  const registry = metricsRegistry();
  return { contentType: registry.contentType, body: await registry.metrics() };
}

export interface MetricSpec<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
}

/**
 * Get-or-create: a series is registered once per process however many apps, servers or brokers
 * ask for it (tests start several in one process).
 */
export function counter<L extends string>(spec: MetricSpec<L>): Counter<L> {
  const existing = metricsRegistry().getSingleMetric(spec.name);
  if (existing) return existing as Counter<L>;
  return new Counter<L>({ ...spec, labelNames: [...spec.labelNames], registers: [metricsRegistry()] });
}

export function histogram<L extends string>(spec: MetricSpec<L> & { buckets: number[] }): Histogram<L> {
  const existing = metricsRegistry().getSingleMetric(spec.name);
  if (existing) return existing as Histogram<L>;
  return new Histogram<L>({ ...spec, labelNames: [...spec.labelNames], registers: [metricsRegistry()] });
}

export function gauge<L extends string>(spec: MetricSpec<L>): Gauge<L> {
  const existing = metricsRegistry().getSingleMetric(spec.name);
  if (existing) return existing as Gauge<L>;
  return new Gauge<L>({ ...spec, labelNames: [...spec.labelNames], registers: [metricsRegistry()] });
}
