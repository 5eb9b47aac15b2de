// First: tracing (off unless OTEL_* configures it) must patch http, express and gRPC before they load.
import '@social/telemetry';
import { runMain } from '@social/runtime';
import { loadGatewayConfig } from './config';
import { GatewayService } from './gateway-service';

runMain('gateway', () => GatewayService.create(loadGatewayConfig()));
