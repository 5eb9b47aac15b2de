// First: tracing (off unless OTEL_* configures it) must patch http, express and gRPC before they load.
import '@social/telemetry';
import { runMain } from '@social/runtime';
import { loadWebhooksConfig } from './config';
import { WebhooksService } from './webhooks-service';

runMain('webhooks', () => WebhooksService.create(loadWebhooksConfig()));
