// First: tracing (off unless OTEL_* configures it) must patch http, express and gRPC before they load.
import '@social/telemetry';
import { runMain } from '@social/runtime';
import { loadCompetitorsConfig } from './config';
import { CompetitorsService } from './competitors-service';

runMain('competitors', () => CompetitorsService.create(loadCompetitorsConfig()));
