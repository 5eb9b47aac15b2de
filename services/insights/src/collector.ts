// First: tracing (off unless OTEL_* configures it) must patch http, express and gRPC before they load.
import '@social/telemetry';
import { runMain } from '@social/runtime';
import { CollectorService } from './collector-service';
import { loadInsightsConfig } from './config';

runMain('insights-collector', () => CollectorService.create(loadInsightsConfig()));
