// First: tracing (off unless OTEL_* configures it) must patch http, express and gRPC before they load.
import '@social/telemetry';
import { runMain } from '@social/runtime';
import { loadPublisherConfig } from './config';
import { PublisherService } from './publisher-service';

runMain('publisher', () => PublisherService.create(loadPublisherConfig()));
