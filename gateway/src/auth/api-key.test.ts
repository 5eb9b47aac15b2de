import { hashApiKey, keyMatches, newApiId, newApiKey } from './api-key';

describe('api keys', () => {
  it('matches a key against its stored hash only', () => {
    const key = newApiKey();
    expect(keyMatches(key, hashApiKey(key))).toBe(true);
    expect(keyMatches(`${key}x`, hashApiKey(key))).toBe(false);
  });

  it('never matches when there is no stored hash', () => {
    expect(keyMatches('dummy-key-for-constant-time-comparison', undefined)).toBe(false);
  });

  it('makes ids and keys that are unique and URL-safe', () => {
    const ids = new Set(Array.from({ length: 100 }, newApiId));
    expect(ids.size).toBe(100);
    expect(newApiKey()).toMatch(/^ask_[A-Za-z0-9_-]{43}$/);
  });
});
