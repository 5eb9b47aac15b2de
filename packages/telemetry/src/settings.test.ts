import { readTracingSettings } from './settings';

describe('tracing settings from the standard OTEL_* variables', () => {
  it('is off when nothing is configured', () => {
    expect(readTracingSettings({})).toBeNull();
  });

  it('turns on OTLP over HTTP/protobuf when an endpoint is given', () => {
    expect(readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      exporters: ['otlp'],
      protocol: 'http/protobuf',
    });
    expect(readTracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toEqual({
      exporters: ['otlp'],
      protocol: 'http/protobuf',
    });
  });

  it('follows OTEL_TRACES_EXPORTER, the protocol and the service name', () => {
    expect(
      readTracingSettings({
        OTEL_TRACES_EXPORTER: 'otlp,console',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'posts-eu',
      }),
    ).toEqual({
      exporters: ['otlp', 'console'],
      protocol: 'http/json',
      serviceName: 'posts-eu',
    });
  });

  it('stays off when disabled, whatever else is set', () => {
    expect(
      readTracingSettings({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toBeNull();
    expect(readTracingSettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeNull();
  });

  it('refuses what it cannot honour, naming the variable', () => {
    expect(() => readTracingSettings({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => readTracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/,
    );
  });
});
