// First: tracing (off unless OTEL_* configures it) must patch http, express and gRPC before they load.
import '@social/telemetry';
import { runMain } from '@social/runtime';
import { loadInsightsConfig } from './config';
import { InsightsService } from './insights-service';

runMain('insights', () => InsightsService.create(loadInsightsConfig()));
