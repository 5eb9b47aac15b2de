import * as grpc from '@grpc/grpc-js';
import { testSigner, testVerifier } from '@social/testkit';
import { createGrpcClient, GrpcServer, serviceDefinition, type CallContext, type GrpcClientOptions } from '../src';

export const echoDefinition = serviceDefinition('testing/v1/echo.proto', 'testing.v1.EchoService');

export interface EchoRequest {
  message: string;
}
export interface EchoResponse {
  message: string;
  workspace_id: string;
  request_id: string;
}
export type EchoMethods = { Echo: [EchoRequest, EchoResponse] };
export type EchoHandler = (request: EchoRequest, ctx: CallContext) => Promise<EchoResponse>;

const echoBack: EchoHandler = async (request, ctx) => ({
  message: request.message,
  workspace_id: ctx.workspaceId,
  request_id: ctx.requestId,
});

export interface RunningEcho {
  server: GrpcServer;
  address: string;
  client(options?: Partial<GrpcClientOptions>): ReturnType<typeof createGrpcClient<EchoMethods>>;
  /** Shuts the server down and closes every client made here. */
  stop(): Promise<void>;
}

/** A real echo server on a free port, with the given handler. */
export async function startEcho(handler: EchoHandler = echoBack): Promise<RunningEcho> {
  const server = new GrpcServer({ serviceName: 'echo', verifier: testVerifier('echo') });
  // Only `posts` may call Echo: tests sign as another service to see the allow-list refuse it.
  server.addService<EchoMethods>(echoDefinition, { Echo: handler }, { Echo: ['posts'] });
  const port = await server.start('127.0.0.1', 0);
  const address = `127.0.0.1:${port}`;
  const clients: { close(): void }[] = [];
  return {
    server,
    address,
    client(options = {}) {
      const client = createGrpcClient<EchoMethods>(echoDefinition, address, {
        audience: 'echo',
        signer: testSigner('posts'),
        ...options,
      });
      clients.push(client);
      return client;
    },
    async stop() {
      for (const c of clients) c.close();
      await server.shutdown(100);
    },
  };
}

/** A bare grpc-js call, for what createGrpcClient never sends (no token, a hand-made token). */
export function rawEcho(address: string, metadata: grpc.Metadata): Promise<grpc.ServiceError | EchoResponse> {
  const echo = echoDefinition['Echo']!;
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      echo.path,
      echo.requestSerialize,
      echo.responseDeserialize,
      { message: 'hi' },
      metadata,
      { deadline: Date.now() + 2000 },
      (err, response) => {
        client.close();
        resolve(err ?? (response as EchoResponse));
      },
    );
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
