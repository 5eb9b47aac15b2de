import { Webhook } from 'standardwebhooks';
import { newSecret, sign, signedHeaders, signingSecrets } from './signature';

describe('Standard Webhooks signatures', () => {
  it('makes secrets of 32 random bytes as whsec_<base64>', () => {
    const a = newSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(a);
  });

  it('signs what the standardwebhooks package verifies, and nothing else', () => {
    const secret = newSecret();
    const body = JSON.stringify({ type: 'post.published', data: { postId: 'p1' } });
    const headers = signedHeaders(secret, 'msg_1', body, new Date());
    expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(secret).verify(body.replace('p1', 'p2'), headers)).toThrow();
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });

  it('matches the signature the package computes for the same id, time and body', () => {
    const secret = newSecret();
    const at = new Date('2026-01-02T03:04:05Z');
    expect(sign(secret, 'msg_x', Math.floor(at.getTime() / 1000), '{}')).toBe(new Webhook(secret).sign('msg_x', at, '{}'));
  });

  it('signs with each secret given, space-separated, so either secret verifies (a rotation)', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const body = '{"type":"media.ready"}';
    const now = new Date();
    const headers = signedHeaders([current, previous], 'msg_2', body, now);
    const ts = Math.floor(now.getTime() / 1000);
    expect(headers['webhook-signature']).toBe(`${sign(current, 'msg_2', ts, body)} ${sign(previous, 'msg_2', ts, body)}`);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });

  it('signs with the previous secret only until it expires', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const e = { secret: 'whsec_new', previousSecret: 'whsec_old', previousSecretExpiresAt: new Date(at.getTime() + 1000) };
    expect(signingSecrets(e, at)).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(e, new Date(at.getTime() + 1000))).toEqual(['whsec_new']);
    expect(signingSecrets({ ...e, previousSecret: null, previousSecretExpiresAt: null }, at)).toEqual(['whsec_new']);
  });
});
