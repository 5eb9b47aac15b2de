import { instrumentIfConfigured } from './tracing';

export { readTracingSettings, type TracingSettings } from './settings';
export { instrumentIfConfigured, REQUEST_ID_ATTRIBUTE, startTracing, type Tracing } from './tracing';

// Importing this package first thing in a process's index.ts is what lets the instrumentations
// patch http, express and gRPC before anything loads them; it does nothing unless OTEL_* asks.
instrumentIfConfigured();
