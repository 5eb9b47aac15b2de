import { GrpcServer } from './server';
import { serviceDefinition } from './proto-loader';

const echo = serviceDefinition('testing/v1/echo.proto', 'testing.v1.EchoService');
const newServer = () => new GrpcServer({ serviceName: 'echo', audience: 'echo', internalJwtSecret: 's' });

describe('GrpcServer.addService', () => {
  it('refuses a service with a method that has no handler', () => {
    expect(() => newServer().addService(echo, {} as never)).toThrow('testing.v1.EchoService/Echo has no handler');
  });

  it('refuses handlers for methods the service does not have', () => {
    const handlers = { Echo: async () => ({}), Ecko: async () => ({}) };

    expect(() => newServer().addService(echo, handlers)).toThrow('testing.v1.EchoService has no method(s) Ecko');
  });

  it('refuses client-streaming methods', () => {
    const sink = serviceDefinition('testing/v1/stream.proto', 'testing.v1.SinkService');

    expect(() => newServer().addService(sink, { Sink: async () => ({}) })).toThrow(
      'testing.v1.SinkService/Sink: client-streaming methods are not supported',
    );
  });

  it('accepts server-streaming methods', () => {
    const count = serviceDefinition('testing/v1/stream.proto', 'testing.v1.CountService');

    expect(() => newServer().addService(count, { Count: async function* () {} } as never)).not.toThrow();
  });
});
