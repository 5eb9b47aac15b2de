// First: tracing (off unless OTEL_* configures it) must patch http, express and gRPC before they load.
import '@social/telemetry';
import { runMain } from '@social/runtime';
import { loadMediaConfig } from './config';
import { MediaWorker } from './media-worker';

runMain('media-worker', () => MediaWorker.create(loadMediaConfig()));
