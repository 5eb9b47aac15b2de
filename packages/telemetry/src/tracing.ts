import type { IncomingMessage, ServerResponse, ClientRequest } from 'node:http';
import { diag, DiagConsoleLogger, DiagLogLevel, type Span } from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { readTracingSettings, type TracingSettings } from './settings';

/** The span attribute that carries our X-Request-Id (kept beside the trace id, not replaced by it). */
export const REQUEST_ID_ATTRIBUTE = 'request.id';

const HEALTH_PATHS = /^\/(healthz|readyz|metrics)(\?|$)/;

export interface Tracing {
  readonly enabled: boolean;
  /** Ends tracing: exports the spans still buffered. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { enabled: false, shutdown: async () => undefined };

let settings: TracingSettings | null = null;
let instrumented = false;
let started: Tracing | undefined;

/**
 * Patches http, express and gRPC as they load, when tracing is configured. Must run before those
 * modules are required, which is why every process's index.ts imports this package first. The SDK
 * packages are required only here, so a process with tracing off never loads them.
 */
export function instrumentIfConfigured(env: Record<string, string | undefined> = process.env): void {
  if (instrumented) return;
  settings = readTracingSettings(env);
  if (!settings) return;
  instrumented = true;
  if (env['OTEL_LOG_LEVEL']) diag.setLogger(new DiagConsoleLogger(), diagLevel(env['OTEL_LOG_LEVEL']));
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation, ExpressLayerType } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { GrpcInstrumentation } = require('@opentelemetry/instrumentation-grpc') as typeof import('@opentelemetry/instrumentation-grpc');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const instrumentations: Instrumentation[] = [
    new HttpInstrumentation({
      // Probes and scrapes every few seconds would bury the traces of real work.
      ignoreIncomingRequestHook: (req) => HEALTH_PATHS.test(req.url ?? ''),
      ignoreOutgoingRequestHook: (opts) => HEALTH_PATHS.test(opts.path ?? ''),
      applyCustomAttributesOnSpan: (span, req, res) => tagRequestId(span, req, res),
    }),
    // Middleware and router layers (auth, JSON, guards, every router a request passes through) would
    // add a span each to every request; the handler span says where the time went, and the server
    // span gets its http.route.
    new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
    new GrpcInstrumentation({
      ignoreGrpcMethods: [/^Check$/, /^Watch$/],
      metadataToSpanAttributes: { client: { requestMetadata: ['x-request-id'] }, server: { requestMetadata: ['x-request-id'] } },
    }),
  ];
  registerInstrumentations({ instrumentations });
}

/**
 * Installs the tracer provider (W3C traceparent propagation, async context, batch export) under
 * the service's name (OTEL_SERVICE_NAME wins). Without configuration it does nothing and the
 * OpenTelemetry API stays a no-op everywhere.
 */
export function startTracing(serviceName: string, env: Record<string, string | undefined> = process.env): Tracing {
  if (started) return started;
  instrumentIfConfigured(env);
  if (!settings) return (started = OFF);
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } =
    require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ 'service.name': settings.serviceName ?? serviceName }));
  const provider = new NodeTracerProvider({
    resource,
    // Batch sizes and delays follow OTEL_BSP_*; the exporters read OTEL_EXPORTER_OTLP_*.
    spanProcessors: settings.exporters.map((name) => new BatchSpanProcessor(exporterFor(name, settings!))),
  });
  provider.register();
  started = { enabled: true, shutdown: () => provider.shutdown() };
  return started;
}

function exporterFor(name: 'otlp' | 'console', s: TracingSettings): SpanExporter {
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (name === 'console') {
    const { ConsoleSpanExporter } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
    return new ConsoleSpanExporter();
  }
  if (s.protocol === 'http/json') {
    const { OTLPTraceExporter } =
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter();
  }
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter();
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** The request id on both sides of a hop: the caller's header, or the one the server answered with. */
function tagRequestId(span: Span, req: IncomingMessage | ClientRequest, res: ServerResponse | IncomingMessage): void {
  const fromReq = 'getHeader' in req ? req.getHeader('x-request-id') : req.headers['x-request-id'];
  const fromRes = 'getHeader' in res ? res.getHeader('x-request-id') : res.headers['x-request-id'];
  const id = [fromRes, fromReq].find((v) => typeof v === 'string' && v.length > 0);
  if (typeof id === 'string') span.setAttribute(REQUEST_ID_ATTRIBUTE, id);
}

function diagLevel(level: string): DiagLogLevel {
  const l = level.toUpperCase() as keyof typeof DiagLogLevel;
  return DiagLogLevel[l] ?? DiagLogLevel.INFO;
}
