import * as grpc from '@grpc/grpc-js';
import { AppError } from '@social/errors';
import { setLogLevel } from '@social/logger';
import { grpcServerHandling } from '@social/metrics';
import { checkHealth } from '../src';
import { rawEcho, startEcho, type RunningEcho } from './echo-fixture';

setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

let running: RunningEcho | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/** Calls recorded so far for a method and status code (the histogram's _count). */
async function handled(method: string, code: string): Promise<number> {
  const { values } = await grpcServerHandling().get();
  const count = values.find(
    (v) =>
      v.metricName === 'grpc_server_handling_seconds_count' &&
      v.labels['service'] === 'testing.v1.EchoService' &&
      v.labels['method'] === method &&
      v.labels['code'] === code,
  );
  return count?.value ?? 0;
}

describe('grpc_server_handling_seconds', () => {
  it('times each call by service, method and status code', async () => {
    running = await startEcho(async (request) => {
      if (request.message === 'missing') throw new AppError('THING_NOT_FOUND', 404, 'no such thing');
      return { message: request.message, workspace_id: '', request_id: '' };
    });
    const client = running.client();

    await client.call('Echo', { message: 'a' }, { workspaceId: 'ws-1' });
    await client.call('Echo', { message: 'b' }, { workspaceId: 'ws-1' });
    await expect(client.call('Echo', { message: 'missing' }, { workspaceId: 'ws-1' })).rejects.toThrow();

    expect(await handled('Echo', 'OK')).toBe(2);
    expect(await handled('Echo', 'NOT_FOUND')).toBe(1);
  });

  it('records calls refused for a missing token as UNAUTHENTICATED', async () => {
    running = await startEcho();

    const result = await rawEcho(running.address, new grpc.Metadata());

    expect(result).toMatchObject({ code: grpc.status.UNAUTHENTICATED });

    expect(await handled('Echo', 'UNAUTHENTICATED')).toBe(1);
  });

  it('leaves health checks out', async () => {
    running = await startEcho();

    await checkHealth(running.address);

    const { values } = await grpcServerHandling().get();
    expect(values.some((v) => v.labels['service'] === 'grpc.health.v1.Health')).toBe(false);
  });
});
