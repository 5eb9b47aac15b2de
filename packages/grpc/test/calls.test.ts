import * as grpc from '@grpc/grpc-js';
import { AppError } from '@social/errors';
import { forgeToken, signTestToken, testSigner } from '@social/testkit';
import { createLogger, runWithContext, setLogLevel } from '@social/logger';
import { createGrpcClient, type CallContext } from '../src';
import { echoDefinition, rawEcho, sleep, startEcho, type RunningEcho } from './echo-fixture';

let running: RunningEcho | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/** The JSON log lines the service would write while fn runs (captured instead of printed). */
async function logLines(fn: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  const transport = createLogger('test').transports[0]!;
  const wasSilent = transport.silent;
  transport.silent = false;
  const spy = jest.spyOn(transport, 'log').mockImplementation((info: Record<symbol, string>, next: () => void) => {
    lines.push(JSON.parse(info[Symbol.for('message')]!));
    next();
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
    transport.silent = wasSilent;
  }
  return lines;
}

const bearer = (token: string) => {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
};

describe('a call through createGrpcClient', () => {
  it('reaches the handler and returns its response, with the workspace taken from the token', async () => {
    running = await startEcho();

    const response = await running.client().call('Echo', { message: 'hello' }, { workspaceId: 'ws-1' });

    expect(response.message).toBe('hello');
    expect(response.workspace_id).toBe('ws-1');
    expect(response.request_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('carries the request id of the current log context', async () => {
    running = await startEcho();
    const client = running.client();

    const fromContext = await runWithContext({ requestId: 'req-from-context' }, () =>
      client.call('Echo', { message: 'a' }, { workspaceId: 'ws-1' }),
    );
    const explicit = await client.call('Echo', { message: 'b' }, { workspaceId: 'ws-1', requestId: 'req-explicit' });

    expect(fromContext.request_id).toBe('req-from-context');
    expect(explicit.request_id).toBe('req-explicit');
  });

  it('gives the handler the caller, the metadata and the deadline of the call', async () => {
    let seen: CallContext | undefined;
    running = await startEcho(async (request, ctx) => {
      seen = ctx;
      return { message: request.message, workspace_id: ctx.workspaceId, request_id: ctx.requestId };
    });
    const before = Date.now();

    await running.client().call('Echo', { message: 'x' }, { workspaceId: 'ws-2', deadlineMs: 1500 });

    expect(seen?.caller).toBe('posts');
    expect(seen?.plan).toBeUndefined();
    expect(seen?.metadata.get('x-request-id')).toEqual([seen?.requestId]);
    expect(seen?.deadline?.getTime()).toBeGreaterThanOrEqual(before + 1400);
    expect(seen?.deadline?.getTime()).toBeLessThanOrEqual(Date.now() + 1500);
  });
});

describe('logging', () => {
  afterEach(() => setLogLevel(process.env['LOG_LEVEL'] ?? 'info'));

  it('logs each call at info with method, status code, caller and duration, in the request context', async () => {
    running = await startEcho(async () => {
      throw new AppError('NOT_FOUND', 404, 'Nothing here.');
    });
    const client = running.client();
    setLogLevel('info');

    const lines = await logLines(() =>
      client.call('Echo', { message: 'x' }, { workspaceId: 'ws-9', requestId: 'req-log' }).catch(() => undefined),
    );

    const rpcLines = lines.filter((l) => l['message'] === 'rpc');
    expect(rpcLines).toHaveLength(1);
    expect(rpcLines[0]).toMatchObject({
      level: 'info',
      method: '/testing.v1.EchoService/Echo',
      code: 'NOT_FOUND',
      caller: 'posts',
      requestId: 'req-log',
      workspaceId: 'ws-9',
    });
    expect(typeof rpcLines[0]?.['durationMs']).toBe('number');
  });
});

describe('internal authentication', () => {
  let handlerCalls = 0;
  beforeEach(async () => {
    handlerCalls = 0;
    running = await startEcho(async (request, ctx) => {
      handlerCalls += 1;
      return { message: request.message, workspace_id: ctx.workspaceId, request_id: ctx.requestId };
    });
  });

  it('refuses a call without a token', async () => {
    const result = await rawEcho(running!.address, new grpc.Metadata());

    expect(result).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    expect((result as grpc.ServiceError).metadata.get('x-error-code')).toEqual(['UNAUTHENTICATED']);
    expect(handlerCalls).toBe(0);
  });

  it('refuses a token minted for another service', async () => {
    const err = await running!
      .client({ audience: 'media' })
      .call('Echo', { message: 'hi' }, { workspaceId: 'ws-1' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
    expect((err as AppError).message).toContain('claim aud rejected');
    expect(handlerCalls).toBe(0);
  });

  it('refuses an expired token', async () => {
    const past = Math.floor(Date.now() / 1000) - 100;
    const token = signTestToken('posts', 'echo', 'ws-1', { payload: { iat: past, exp: past + 60 } });

    const result = await rawEcho(running!.address, bearer(token));

    expect(result).toMatchObject({ code: grpc.status.UNAUTHENTICATED, details: 'Invalid internal token: expired.' });
    expect(handlerCalls).toBe(0);
  });

  it('refuses a token signed with another secret', async () => {
    const token = forgeToken({ alg: 'HS256', secret: 'dev-only-internal-secret-change-me' }, { ws: 'ws-1', iss: 'posts', aud: 'echo' });

    const result = await rawEcho(running!.address, bearer(token));

    expect(result).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    expect(handlerCalls).toBe(0);
  });

  it("refuses a service that is not on the method's allow-list, even the gateway", async () => {
    for (const signer of [testSigner('media'), testSigner('gateway')]) {
      const err = await running!
        .client({ signer })
        .call('Echo', { message: 'hi' }, { workspaceId: 'ws-1' })
        .catch((e: unknown) => e);

      expect(err).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
      expect((err as AppError).message).toContain(`issuer ${signer.issuer} not allowed`);
    }
    expect(handlerCalls).toBe(0);
  });

  it("refuses a service key presented under another issuer's name", async () => {
    // media's key, claiming to be posts (the allowed caller): the key id binds the key to media.
    const token = signTestToken('media', 'echo', 'ws-1', { payload: { iss: 'posts' } });

    const result = await rawEcho(running!.address, bearer(token));

    expect(result).toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
      details: 'Invalid internal token: key does not belong to the issuer.',
    });
    expect(handlerCalls).toBe(0);
  });
});

describe('errors thrown by a handler', () => {
  it('arrive at the caller as the same AppError', async () => {
    running = await startEcho(async () => {
      throw new AppError('POST_NOT_FOUND', 404, 'Post p1 was not found in this workspace.', {
        details: [{ path: 'postId', message: 'no post p1' }],
      });
    });

    const err = await running
      .client()
      .call('Echo', { message: 'x' }, { workspaceId: 'ws-1' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({
      code: 'POST_NOT_FOUND',
      status: 404,
      message: 'Post p1 was not found in this workspace.',
      details: [{ path: 'postId', message: 'no post p1' }],
    });
  });

  it('arrive with the gRPC status matching their HTTP status', async () => {
    running = await startEcho(async () => {
      throw new AppError('INVALID_TRANSITION', 409, 'Cannot schedule an archived post.');
    });
    const token = signTestToken('posts', 'echo', 'ws-1');

    const result = await rawEcho(running.address, bearer(token));

    expect(result).toMatchObject({ code: grpc.status.FAILED_PRECONDITION, details: 'Cannot schedule an archived post.' });
  });

  it('hide the internals of an unexpected error behind INTERNAL 500', async () => {
    running = await startEcho(async () => {
      throw new Error('connection string mongodb://user:pw@db failed');
    });

    const client = running.client();
    let err: unknown;

    await logLines(async () => {
      err = await client.call('Echo', { message: 'x' }, { workspaceId: 'ws-1' }).catch((e: unknown) => e);
    });

    expect(err).toMatchObject({ code: 'INTERNAL', status: 500 });
    expect((err as AppError).message).not.toContain('mongodb');
  });

  it('are logged once at error level when unexpected, with the request id', async () => {
    running = await startEcho(async () => {
      throw new Error('disk full');
    });
    const client = running.client();

    const lines = await logLines(() =>
      client.call('Echo', { message: 'x' }, { workspaceId: 'ws-1', requestId: 'req-boom' }).catch(() => undefined),
    );

    const errors = lines.filter((l) => l['level'] === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      message: 'unhandled error in /testing.v1.EchoService/Echo',
      requestId: 'req-boom',
      workspaceId: 'ws-1',
      err: { message: 'disk full' },
    });
  });

  it('are not logged as errors when they are expected AppErrors', async () => {
    running = await startEcho(async () => {
      throw new AppError('NOT_FOUND', 404, 'Nothing here.');
    });
    const client = running.client();

    const lines = await logLines(() => client.call('Echo', { message: 'x' }, { workspaceId: 'ws-1' }).catch(() => undefined));

    expect(lines.filter((l) => l['level'] === 'error')).toEqual([]);
  });
});

describe('deadlines and reachability', () => {
  it('turns a handler slower than the deadline into DEADLINE_EXCEEDED 504', async () => {
    running = await startEcho(async (request, ctx) => {
      await sleep(5000);
      return { message: request.message, workspace_id: ctx.workspaceId, request_id: ctx.requestId };
    });
    const startedAt = Date.now();

    const err = await running
      .client()
      .call('Echo', { message: 'x' }, { workspaceId: 'ws-1', deadlineMs: 100 })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'DEADLINE_EXCEEDED', status: 504, message: 'echo Echo did not answer in time.' });
    // Well under the handler's 5 s: the caller did not wait for it.
    expect(Date.now() - startedAt).toBeLessThan(2500);
  });

  it('uses the default deadline of the client when the call sets none', async () => {
    running = await startEcho(async (request, ctx) => {
      await sleep(500);
      return { message: request.message, workspace_id: ctx.workspaceId, request_id: ctx.requestId };
    });

    const err = await running
      .client({ defaultDeadlineMs: 100 })
      .call('Echo', { message: 'x' }, { workspaceId: 'ws-1' })
      .catch((e: unknown) => e);

    expect(err).toMatchObject({ code: 'DEADLINE_EXCEEDED', status: 504 });
  });

  it('reports a server that is not there as SERVICE_UNAVAILABLE 503', async () => {
    running = await startEcho();
    const address = running.address;
    await running.stop();
    running = undefined;
    const client = createGrpcClient(echoDefinition, address, { audience: 'echo', signer: testSigner('posts') });

    const err = await client.call('Echo', { message: 'x' }, { workspaceId: 'ws-1' }).catch((e: unknown) => e);
    client.close();

    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
  });
});
