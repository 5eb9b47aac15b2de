// First: tracing (off unless OTEL_* configures it) must patch http, express and gRPC before they load.
import '@social/telemetry';
import { runMain } from '@social/runtime';
import { loadMediaConfig } from './config';
import { MediaService } from './media-service';

runMain('media', () => MediaService.create(loadMediaConfig()));
