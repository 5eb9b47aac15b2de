import { AppError } from '@social/errors';
import { createGrpcClient, GrpcServer, serviceDefinition, type ServerStream } from '../src';
import { testSigner, testVerifier } from '@social/testkit';

const countDefinition = serviceDefinition('testing/v1/stream.proto', 'testing.v1.CountService');
interface CountRequest {
  count: number;
  fail_after: number;
}
interface CountItem {
  n: number;
  workspace_id: string;
  payload: Buffer;
}
type CountMethods = { Count: [CountRequest, ServerStream<CountItem>] };

let server: GrpcServer;
let address: string;
let produced = 0;
let finished = false;

beforeAll(async () => {
  server = new GrpcServer({ serviceName: 'count', verifier: testVerifier('count') });
  server.addService<CountMethods>(
    countDefinition,
    {
      Count: async function* (request, ctx) {
        finished = false;
        produced = 0;
        try {
          for (let n = 1; n <= request.count; n++) {
            if (request.fail_after && n > request.fail_after) throw new AppError('THING_NOT_FOUND', 404, 'no more things');
            produced++;
            yield { n, workspace_id: ctx.workspaceId, payload: Buffer.alloc(64 * 1024, n % 256) };
          }
        } finally {
          finished = true;
        }
      },
    },
    { Count: ['publisher'] },
  );
  address = `127.0.0.1:${await server.start('127.0.0.1', 0)}`;
});
afterAll(() => server.shutdown(100));

const client = (audience = 'count') =>
  createGrpcClient<CountMethods>(countDefinition, address, { audience, signer: testSigner('publisher') });

describe('a server-streaming call', () => {
  it('delivers every item in order with the workspace of the token', async () => {
    const c = client();
    const items: CountItem[] = [];
    for await (const item of c.stream('Count', { count: 50, fail_after: 0 }, { workspaceId: 'ws-s' })) items.push(item);
    c.close();

    expect(items.map((i) => i.n)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(items[49]!.workspace_id).toBe('ws-s');
    expect(items[49]!.payload.length).toBe(64 * 1024);
  });

  it('rejects with the AppError the handler threw, after the items sent before it', async () => {
    const c = client();
    const items: number[] = [];
    let error: unknown;
    try {
      for await (const item of c.stream('Count', { count: 10, fail_after: 3 }, { workspaceId: 'ws-s' })) items.push(item.n);
    } catch (err) {
      error = err;
    }
    c.close();

    expect(items).toEqual([1, 2, 3]);
    expect(error).toMatchObject({ code: 'THING_NOT_FOUND', status: 404, message: 'no more things' });
  });

  it('refuses a caller without a valid token for this service', async () => {
    const c = client('someone-else');
    let error: unknown;
    try {
      for await (const _ of c.stream('Count', { count: 1, fail_after: 0 }, { workspaceId: 'ws-s' })) void _;
    } catch (err) {
      error = err;
    }
    c.close();

    expect(error).toMatchObject({ status: 401 });
  });

  it('stops the producer when the caller breaks out early (no unbounded buffering)', async () => {
    const c = client();
    for await (const item of c.stream('Count', { count: 100000, fail_after: 0 }, { workspaceId: 'ws-s' })) {
      if (item.n === 5) break;
    }
    await new Promise((r) => setTimeout(r, 300));
    c.close();

    expect(finished).toBe(true);
    expect(produced).toBeLessThan(1000);
  });
});
