import { readConfig } from './config';

describe('readConfig', () => {
  it('defaults to port 8090, admin routes off, and a per-prefix database', () => {
    const cfg = readConfig({});
    expect(cfg).toMatchObject({ port: 8090, adminEnabled: false, dbName: 'social_network_sandbox', seed: 'social-sandbox' });
    expect(readConfig({ MONGO_DB_PREFIX: 'x_' }).dbName).toBe('x_network_sandbox');
    expect(cfg.maxProcessingMs).toBeUndefined();
    expect(readConfig({ SANDBOX_MAX_PROCESSING_MS: '250' }).maxProcessingMs).toBe(250);
  });

  it('turns admin routes on only when SANDBOX_ADMIN says so, in any environment', () => {
    expect(readConfig({ NODE_ENV: 'development' }).adminEnabled).toBe(false);
    expect(readConfig({ SANDBOX_ADMIN: 'false' }).adminEnabled).toBe(false);
    expect(readConfig({ SANDBOX_ADMIN: 'true' }).adminEnabled).toBe(true);
    expect(readConfig({ NODE_ENV: 'production', SANDBOX_ADMIN: 'true' }).adminEnabled).toBe(true);
  });

  it('names a bad variable', () => {
    expect(() => readConfig({ NETWORK_SANDBOX_PORT: 'abc' })).toThrow(/NETWORK_SANDBOX_PORT/);
    expect(() => readConfig({ SANDBOX_PUBLIC_URL: 'not a url' })).toThrow(/SANDBOX_PUBLIC_URL/);
    expect(() => readConfig({ SANDBOX_MAX_PROCESSING_MS: '0' })).toThrow(/SANDBOX_MAX_PROCESSING_MS/);
  });
});
