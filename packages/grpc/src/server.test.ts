import { testVerifier } from '@social/testkit';
import { GrpcServer } from './server';
import { serviceDefinition } from './proto-loader';

const echo = serviceDefinition('testing/v1/echo.proto', 'testing.v1.EchoService');
const newServer = () => new GrpcServer({ serviceName: 'echo', verifier: testVerifier('echo') });

describe('GrpcServer.addService', () => {
  it('refuses a service with a method that has no handler', () => {
    expect(() => newServer().addService(echo, {} as never, {} as never)).toThrow('testing.v1.EchoService/Echo has no handler');
  });

  it('refuses handlers for methods the service does not have', () => {
    const handlers = { Echo: async () => ({}), Ecko: async () => ({}) };

    expect(() => newServer().addService(echo, handlers, { Echo: ['posts'] } as never)).toThrow(
      'testing.v1.EchoService has no method(s) Ecko',
    );
  });

  it('refuses client-streaming methods', () => {
    const sink = serviceDefinition('testing/v1/stream.proto', 'testing.v1.SinkService');

    expect(() => newServer().addService(sink, { Sink: async () => ({}) }, { Sink: ['posts'] })).toThrow(
      'testing.v1.SinkService/Sink: client-streaming methods are not supported',
    );
  });

  it('refuses a method without allowed callers, so a new RPC starts closed', () => {
    expect(() => newServer().addService(echo, { Echo: async () => ({}) } as never, { Echo: [] })).toThrow(
      'testing.v1.EchoService/Echo has no allowed callers',
    );
  });

  it('accepts server-streaming methods', () => {
    const count = serviceDefinition('testing/v1/stream.proto', 'testing.v1.CountService');

    expect(() => newServer().addService(count, { Count: async function* () {} } as never, { Count: ['posts'] })).not.toThrow();
  });
});
