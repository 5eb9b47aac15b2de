import { GrpcServer } from './server';
import { healthDefinition } from './health';
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

  it('refuses streaming methods', () => {
    const handlers = { Check: async () => ({}), Watch: async () => ({}) };

    expect(() => newServer().addService(healthDefinition(), handlers)).toThrow(
      'grpc.health.v1.Health/Watch: only unary methods are supported',
    );
  });
});
