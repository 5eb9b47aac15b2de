import { AtRestCipher } from './at-rest-cipher';

describe('AtRestCipher', () => {
  it('round-trips a value without storing it in clear', () => {
    const cipher = new AtRestCipher('a-secret-of-enough-length');
    const stored = cipher.encrypt('sbx_secret_token');

    expect(stored).not.toContain('sbx_secret_token');
    expect(AtRestCipher.isEncrypted(stored)).toBe(true);
    expect(cipher.decrypt(stored)).toBe('sbx_secret_token');
  });

  it('gives two encryptions of one value different texts', () => {
    const cipher = new AtRestCipher('a-secret-of-enough-length');
    expect(cipher.encrypt('t')).not.toBe(cipher.encrypt('t'));
  });

  it('refuses a value encrypted with another key, or altered', () => {
    const stored = new AtRestCipher('a-secret-of-enough-length').encrypt('token');
    expect(() => new AtRestCipher('another-secret-entirely').decrypt(stored)).toThrow();
    const altered = stored.slice(0, -2) + (stored.endsWith('A') ? 'BB' : 'AA');
    expect(() => new AtRestCipher('a-secret-of-enough-length').decrypt(altered)).toThrow();
  });

  it('tells a value written before encryption from an encrypted one', () => {
    expect(AtRestCipher.isEncrypted('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBe(false);
    expect(AtRestCipher.isEncrypted('v1:only-two')).toBe(false);
  });
});
