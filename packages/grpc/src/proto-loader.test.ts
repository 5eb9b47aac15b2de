import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadProto, serviceDefinition, serviceNameOf } from './proto-loader';

describe('proto loading', () => {
  it('finds a service by its full name, with its unary methods', () => {
    const def = serviceDefinition('testing/v1/echo.proto', 'testing.v1.EchoService');

    expect(Object.keys(def)).toEqual(['Echo']);
    expect(def['Echo']?.path).toBe('/testing.v1.EchoService/Echo');
    expect(def['Echo']?.responseStream).toBe(false);
    expect(serviceNameOf(def)).toBe('testing.v1.EchoService');
  });

  it('keeps snake_case field names and fills defaults', () => {
    const echo = serviceDefinition('testing/v1/echo.proto', 'testing.v1.EchoService')['Echo']!;

    const bytes = echo.responseSerialize({ message: 'hi' });
    expect(echo.responseDeserialize(bytes)).toEqual({ message: 'hi', workspace_id: '', request_id: '' });
  });

  it('loads each file once', () => {
    expect(loadProto('grpc/health/v1/health.proto')).toBe(loadProto('grpc/health/v1/health.proto'));
  });

  it('rejects a name that is not a service of the file', () => {
    expect(() => serviceDefinition('testing/v1/echo.proto', 'testing.v1.NoSuchService')).toThrow(
      'testing/v1/echo.proto defines no service named testing.v1.NoSuchService',
    );
    expect(() => serviceDefinition('testing/v1/echo.proto', 'testing.v1.EchoRequest')).toThrow('defines no service');
  });

  it('reads protos from PROTO_DIR when set (container images)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proto-'));
    fs.mkdirSync(path.join(dir, 'other/v1'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'other/v1/other.proto'),
      'syntax = "proto3"; package other.v1; message Ping {} service OtherService { rpc Ping(Ping) returns (Ping); }',
    );
    const previous = process.env['PROTO_DIR'];
    process.env['PROTO_DIR'] = dir;
    try {
      expect(Object.keys(serviceDefinition('other/v1/other.proto', 'other.v1.OtherService'))).toEqual(['Ping']);
    } finally {
      if (previous === undefined) delete process.env['PROTO_DIR'];
      else process.env['PROTO_DIR'] = previous;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
