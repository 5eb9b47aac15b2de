import { UrlSigner, uploadPath } from './signing';

const signer = new UrlSigner('a-secret-of-16-chars', 'http://gw.test:8080/');
const now = new Date('2030-01-01T00:00:00Z');
const later = new Date(now.getTime() + 15 * 60_000);

const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams);

describe('UrlSigner', () => {
  const url = signer.sign('PUT', uploadPath('m1'), later);

  it('makes an address on the public base URL that verifies before expiry', () => {
    expect(url).toMatch(/^http:\/\/gw\.test:8080\/storage\/uploads\/m1\?expires=\d+&sig=[0-9a-f]{64}$/);
    expect(signer.verify('PUT', uploadPath('m1'), queryOf(url), now)).toBe('ok');
  });

  it('refuses it after expiry', () => {
    expect(signer.verify('PUT', uploadPath('m1'), queryOf(url), new Date(later.getTime() + 1000))).toBe('expired');
  });

  it('refuses it for another media, another method, another expiry or another secret', () => {
    expect(signer.verify('PUT', uploadPath('m2'), queryOf(url), now)).toBe('bad-signature');
    expect(signer.verify('GET', uploadPath('m1'), queryOf(url), now)).toBe('bad-signature');
    const q = queryOf(url);
    expect(signer.verify('PUT', uploadPath('m1'), { ...q, expires: String(Number(q['expires']) + 3600) }, now)).toBe('bad-signature');
    expect(new UrlSigner('another-secret-16ch', 'http://x').verify('PUT', uploadPath('m1'), q, now)).toBe('bad-signature');
  });

  it('refuses missing or malformed parameters', () => {
    expect(signer.verify('PUT', uploadPath('m1'), {}, now)).toBe('missing');
    expect(signer.verify('PUT', uploadPath('m1'), { expires: 'x', sig: 'y' }, now)).toBe('missing');
    expect(signer.verify('PUT', uploadPath('m1'), { ...queryOf(url), sig: 'ab' }, now)).toBe('missing');
  });
});
