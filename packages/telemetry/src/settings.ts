/** What the standard OTEL_* variables ask of tracing; null when tracing is off. */
export interface TracingSettings {
  exporters: ('otlp' | 'console')[];
  /** OTLP over HTTP: protobuf (the OTLP default) or JSON. */
  protocol: 'http/protobuf' | 'http/json';
  serviceName?: string;
}

type Env = Record<string, string | undefined>;

const EXPORTERS = new Set(['otlp', 'console', 'none']);

/**
 * Off unless configured: OTEL_SDK_DISABLED=true, OTEL_TRACES_EXPORTER=none, or neither an exporter
 * nor an OTLP endpoint named means no SDK, no instrumentation and no exporter at all. A value we
 * cannot honour fails start-up with the name of its variable.
 */
export function readTracingSettings(env: Env = process.env): TracingSettings | null {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return null;
  const named = (env['OTEL_TRACES_EXPORTER'] ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  for (const n of named) {
    if (!EXPORTERS.has(n)) throw new Error(`OTEL_TRACES_EXPORTER: unsupported exporter "${n}" (use otlp, console or none).`);
  }
  const endpoint = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  const exporters = (named.length > 0 ? named : endpoint ? ['otlp'] : []).filter((n) => n !== 'none') as TracingSettings['exporters'];
  if (exporters.length === 0) return null;
  const protocolVar = env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (env[protocolVar] || 'http/protobuf').trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new Error(`${protocolVar}: unsupported protocol "${protocol}" (use http/protobuf or http/json).`);
  }
  const serviceName = env['OTEL_SERVICE_NAME']?.trim() || undefined;
  return { exporters, protocol, ...(serviceName ? { serviceName } : {}) };
}
