import { TokenCipher } from './token-cipher';

describe('TokenCipher', () => {
  it('round-trips a token without storing it in clear', () => {
    const cipher = new TokenCipher('a-secret-of-enough-length');
    const stored = cipher.encrypt('sbx_secret_token');

    expect(stored).not.toContain('sbx_secret_token');
    expect(cipher.decrypt(stored)).toBe('sbx_secret_token');
  });

  it('gives two encryptions of one token different texts', () => {
    const cipher = new TokenCipher('a-secret-of-enough-length');
    expect(cipher.encrypt('t')).not.toBe(cipher.encrypt('t'));
  });

  it('refuses a token encrypted with another key', () => {
    const stored = new TokenCipher('a-secret-of-enough-length').encrypt('t');
    expect(() => new TokenCipher('another-secret-entirely').decrypt(stored)).toThrow();
  });
});
