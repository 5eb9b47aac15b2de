import { ConfigError, loadConfig } from './load-config';

const spec = {
  port: { env: 'PORT', type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
  url: { env: 'MONGO_URL', type: 'string', required: true },
  debug: { env: 'DEBUG_ON', type: 'boolean', default: false },
  level: { env: 'LEVEL', type: 'string', enum: ['a', 'b'], default: 'a' },
} as const;

describe('loadConfig', () => {
  it('applies defaults and coerces types', () => {
    expect(loadConfig(spec, { MONGO_URL: 'mongodb://x', DEBUG_ON: 'true', PORT: '8081' })).toEqual({
      port: 8081,
      url: 'mongodb://x',
      debug: true,
      level: 'a',
    });
  });

  it('names the variable that is out of range', () => {
    expect(() => loadConfig(spec, { MONGO_URL: 'x', PORT: '70000' })).toThrow(/PORT must be <= 65535/);
  });

  it('names the variable that has the wrong type', () => {
    expect(() => loadConfig(spec, { MONGO_URL: 'x', PORT: 'abc' })).toThrow(/PORT must be integer \(got "abc"\)/);
  });

  it('names a missing required variable', () => {
    try {
      loadConfig(spec, {});
      throw new Error('should have thrown');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).variable).toBe('MONGO_URL');
    }
  });

  it('rejects a value outside its enum', () => {
    expect(() => loadConfig(spec, { MONGO_URL: 'x', LEVEL: 'z' })).toThrow(/LEVEL must be equal to one of/);
  });
});

import { DEFAULT_PLANS, parsePlans } from './plans';

describe('parsePlans', () => {
  it('uses the default plans when PLANS is unset', () => {
    expect(parsePlans(undefined)).toBe(DEFAULT_PLANS);
  });
  it('reads a plan table', () => {
    expect(parsePlans('{"tiny":{"competitors":1,"requestsPerWindow":10}}')).toEqual({
      tiny: { competitors: 1, requestsPerWindow: 10 },
    });
  });
  it('names PLANS when it is malformed', () => {
    expect(() => parsePlans('{')).toThrow(/PLANS/);
    expect(() => parsePlans('{"x":{"competitors":-1}}')).toThrow(/PLANS/);
  });
});

describe('secrets', () => {
  const secretSpec = { key: { env: 'STORAGE_SIGNING_SECRET', type: 'string', required: true, secret: true } } as const;

  it('are required, with a hint on how to make one', () => {
    expect(() => loadConfig(secretSpec, {})).toThrow(/STORAGE_SIGNING_SECRET is required: generate one/);
  });

  it('refuse every published default, placeholders and short values, without echoing them', () => {
    for (const value of [
      'dev-only-storage-secret-change-me',
      'change-me-in-production-0123456789',
      'CHANGE-ME-at-least-16-characters',
      'x7Qp2',
    ]) {
      let message = '';
      try {
        loadConfig(secretSpec, { STORAGE_SIGNING_SECRET: value });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/^Invalid configuration: STORAGE_SIGNING_SECRET .*refusing to start/);
      expect(message).not.toContain(value);
    }
  });

  it('accept a strong random value', () => {
    expect(loadConfig(secretSpec, { STORAGE_SIGNING_SECRET: 'q9V3m1xZ7rL0pK2wT8yB5nH4cJ6dF0aS' }).key).toHaveLength(32);
  });
});
