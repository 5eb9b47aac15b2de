// First: tracing (off unless OTEL_* configures it) must patch http, express and gRPC before they load.
import '@social/telemetry';
import { runMain } from '@social/runtime';
import { readConfig } from './config';
import { NetworkSandboxService } from './network-sandbox-service';

runMain('network-sandbox', async () => {
  const service = await NetworkSandboxService.create(readConfig());
  await service.start();
  return service;
});
