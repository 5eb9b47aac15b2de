import * as grpc from '@grpc/grpc-js';
import { checkHealth, serviceDefinition, type ServingStatus } from '../src';
import { sleep, startEcho, type RunningEcho } from './echo-fixture';

const ECHO = 'testing.v1.EchoService';

let running: RunningEcho | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/** An open grpc.health.v1.Health/Watch stream and the statuses it has received so far. */
function watch(address: string, service: string) {
  const method = serviceDefinition('grpc/health/v1/health.proto', 'grpc.health.v1.Health')['Watch']!;
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const stream = client.makeServerStreamRequest<{ service: string }, { status: ServingStatus }>(
    method.path,
    method.requestSerialize,
    method.responseDeserialize,
    { service },
    new grpc.Metadata(),
  );
  const statuses: ServingStatus[] = [];
  stream.on('data', (response: { status: ServingStatus }) => statuses.push(response.status));
  const ended = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
  stream.on('error', () => undefined);
  return {
    statuses,
    ended,
    async until(count: number) {
      for (let i = 0; i < 100 && statuses.length < count; i++) await sleep(20);
      return statuses;
    },
    close() {
      stream.cancel();
      client.close();
    },
  };
}

describe('health checking', () => {
  it('answers SERVING for the server and for each added service once started', async () => {
    running = await startEcho();

    expect(await checkHealth(running.address)).toBe('SERVING');
    expect(await checkHealth(running.address, ECHO)).toBe('SERVING');
  });

  it('answers SERVICE_UNKNOWN for a service it does not serve', async () => {
    running = await startEcho();

    expect(await checkHealth(running.address, 'posts.v1.PostsService')).toBe('SERVICE_UNKNOWN');
  });

  it('answers NOT_SERVING after setServing(false), and SERVING again after setServing(true)', async () => {
    running = await startEcho();

    running.server.setServing(false);
    const down = [await checkHealth(running.address), await checkHealth(running.address, ECHO)];
    running.server.setServing(true);
    const up = [await checkHealth(running.address), await checkHealth(running.address, ECHO)];

    expect(down).toEqual(['NOT_SERVING', 'NOT_SERVING']);
    expect(up).toEqual(['SERVING', 'SERVING']);
  });

  it('needs no internal token', async () => {
    running = await startEcho();

    // checkHealth sends no authorization metadata at all.
    await expect(checkHealth(running.address)).resolves.toBe('SERVING');
  });

  it('rejects with SERVICE_UNAVAILABLE when nothing listens', async () => {
    running = await startEcho();
    const address = running.address;
    await running.stop();
    running = undefined;

    await expect(checkHealth(address)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
  });

  it('streams status changes to a watcher', async () => {
    running = await startEcho();
    const watcher = watch(running.address, ECHO);
    await watcher.until(1);

    running.server.setServing(false);
    running.server.setServing(true);

    expect(await watcher.until(3)).toEqual(['SERVING', 'NOT_SERVING', 'SERVING']);
    watcher.close();
  });

  it('tells a watcher of an unknown service SERVICE_UNKNOWN without failing the stream', async () => {
    running = await startEcho();
    const watcher = watch(running.address, 'posts.v1.PostsService');

    expect(await watcher.until(1)).toEqual(['SERVICE_UNKNOWN']);
    watcher.close();
  });
});

describe('shutdown', () => {
  it('reports NOT_SERVING to watchers as soon as it starts, then ends their streams', async () => {
    running = await startEcho();
    const overall = watch(running.address, '');
    const echo = watch(running.address, ECHO);
    await Promise.all([overall.until(1), echo.until(1)]);

    await running.server.shutdown(1000);

    expect(overall.statuses).toEqual(['SERVING', 'NOT_SERVING']);
    expect(echo.statuses).toEqual(['SERVING', 'NOT_SERVING']);
    expect((await overall.ended).code).toBe(grpc.status.OK);
    overall.close();
    echo.close();
  });

  it('does not come back to SERVING once it started', async () => {
    running = await startEcho();
    const watcher = watch(running.address, '');
    await watcher.until(1);

    const stopping = running.server.shutdown(1000);
    running.server.setServing(true);
    await stopping;

    expect(watcher.statuses).toEqual(['SERVING', 'NOT_SERVING']);
    watcher.close();
  });

  it('lets a call in flight finish, and refuses new calls', async () => {
    let entered!: () => void;
    const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
    running = await startEcho(async (request, ctx) => {
      entered();
      await sleep(300);
      return { message: `done: ${request.message}`, workspace_id: ctx.workspaceId, request_id: ctx.requestId };
    });
    const client = running.client();
    const inFlight = client.call('Echo', { message: 'slow' }, { workspaceId: 'ws-1' });
    await handlerEntered;

    const stopped = running.server.shutdown(5000);
    const afterShutdown = await client.call('Echo', { message: 'late' }, { workspaceId: 'ws-1' }).catch((e: unknown) => e);

    await expect(inFlight).resolves.toMatchObject({ message: 'done: slow' });
    expect(afterShutdown).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    await stopped;
  });

  it('cancels calls still running when the grace period is over', async () => {
    let entered!: () => void;
    const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    running = await startEcho(async (request, ctx) => {
      entered();
      await released;
      return { message: request.message, workspace_id: ctx.workspaceId, request_id: ctx.requestId };
    });
    const inFlight = running
      .client()
      .call('Echo', { message: 'stuck' }, { workspaceId: 'ws-1', deadlineMs: 10_000 })
      .catch((e: unknown) => e);
    await handlerEntered;
    const startedAt = Date.now();

    await running.server.shutdown(200);

    // The call was stuck for 10 s; shutdown cut it after its 200 ms grace.
    expect(Date.now() - startedAt).toBeLessThan(5000);
    expect(await inFlight).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    release();
  });
});
