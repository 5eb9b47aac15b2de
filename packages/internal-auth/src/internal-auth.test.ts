import jwt from 'jsonwebtoken';
import { bearerToken, signInternalToken, verifyInternalToken } from './index';

const secret = 'test-secret-0123456789';

describe('internal auth', () => {
  it('verifies a token for its audience and returns the workspace', () => {
    const token = signInternalToken({ workspaceId: 'ws1', requestId: 'r1', plan: 'pro' }, { secret, audience: 'posts' });
    expect(verifyInternalToken(token, { secret, audience: 'posts' })).toEqual({
      workspaceId: 'ws1',
      requestId: 'r1',
      plan: 'pro',
      issuer: 'social-gateway',
    });
  });

  it('says which service signed a service-to-service token', () => {
    const token = signInternalToken({ workspaceId: 'ws1' }, { secret, audience: 'media', issuer: 'publisher' });
    expect(verifyInternalToken(token, { secret, audience: 'media' }).issuer).toBe('publisher');
  });

  it('rejects a token meant for another service', () => {
    const token = signInternalToken({ workspaceId: 'ws1' }, { secret, audience: 'media' });
    expect(() => verifyInternalToken(token, { secret, audience: 'posts' })).toThrow(/audience/);
  });

  it('rejects an expired token', () => {
    const token = jwt.sign({ ws: 'ws1', exp: Math.floor(Date.now() / 1000) - 10 }, secret, { audience: 'posts' });
    expect(() => verifyInternalToken(token, { secret, audience: 'posts' })).toThrow(/expired/);
  });

  it('rejects a token signed with another secret or algorithm', () => {
    const other = signInternalToken({ workspaceId: 'ws1' }, { secret: 'another-secret-987654', audience: 'posts' });
    expect(() => verifyInternalToken(other, { secret, audience: 'posts' })).toThrow(/signature/);
    const none = jwt.sign({ ws: 'ws1' }, '', { algorithm: 'none', audience: 'posts' });
    expect(() => verifyInternalToken(none, { secret, audience: 'posts' })).toThrow();
  });

  it('parses bearer headers strictly', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
