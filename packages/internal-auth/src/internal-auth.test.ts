import { createHmac, sign as cryptoSign } from 'node:crypto';
import { generateSigningKeyPair, parsePrivateKey, parsePublicKeys, publicEntryOf } from './keys';
import { bearerToken, TokenSigner, TokenVerifier } from './tokens';

const gateway = generateSigningKeyPair('gateway');
const posts = generateSigningKeyPair('posts');
const ring = parsePublicKeys(`${gateway.publicEntry}, ${posts.publicEntry}`, 'INTERNAL_JWT_PUBLIC_KEYS');
const verifier = new TokenVerifier(ring, 'posts-target');

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
/** What an attacker holding an old default secret could send. */
const hs256 = (secret: string, payload: object, header: object = {}) => {
  const input = `${b64({ alg: 'HS256', typ: 'JWT', ...header })}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
};

describe('internal tokens', () => {
  it('carry the workspace, request id and plan from the gateway to the audience', async () => {
    const token = await new TokenSigner('gateway', gateway.privateKey).sign(
      { workspaceId: 'ws1', requestId: 'r1', plan: 'pro' },
      { audience: 'posts-target' },
    );

    await expect(verifier.verify(token, ['gateway'])).resolves.toEqual({
      workspaceId: 'ws1',
      requestId: 'r1',
      plan: 'pro',
      issuer: 'gateway',
    });
  });

  it('never take a plan from a service-signed token', async () => {
    const token = await new TokenSigner('posts', posts.privateKey).sign(
      { workspaceId: 'ws1', plan: 'agency' },
      { audience: 'posts-target' },
    );

    await expect(verifier.verify(token, ['posts'])).resolves.toEqual({ workspaceId: 'ws1', issuer: 'posts' });
  });

  it('refuse a service-signed token where only the gateway is allowed', async () => {
    const token = await new TokenSigner('posts', posts.privateKey).sign({ workspaceId: 'ws1' }, { audience: 'posts-target' });

    await expect(verifier.verify(token, ['gateway'])).rejects.toThrow('issuer posts not allowed here');
  });

  it('refuse a service key that claims to be the gateway', async () => {
    // posts' private key under the gateway's name: the key id ties the key to posts.
    const forged = await new TokenSigner('gateway', parsePrivateKey(posts.privateKey, 'k')).sign(
      { workspaceId: 'ws1' },
      { audience: 'posts-target' },
    );

    await expect(verifier.verify(forged, ['gateway'])).rejects.toThrow('key does not belong to the issuer');
  });

  it('refuse a token for another audience', async () => {
    const token = await new TokenSigner('gateway', gateway.privateKey).sign({ workspaceId: 'ws1' }, { audience: 'media' });

    await expect(verifier.verify(token, ['gateway'])).rejects.toThrow('claim aud rejected');
  });

  it('refuse HS256 tokens made with every old default secret, and unsigned ones', async () => {
    const payload = { ws: 'ws1', iss: 'gateway', aud: 'posts-target', iat: now(), exp: now() + 60 };
    const secrets = ['dev-only-internal-secret-change-me', 'change-me-in-production-0123456789', 'test-internal-secret-0123456789'];
    for (const secret of secrets) {
      await expect(verifier.verify(hs256(secret, payload), ['gateway'])).rejects.toThrow(/Invalid internal token/);
      await expect(verifier.verify(hs256(secret, payload, { kid: gateway.kid }), ['gateway'])).rejects.toThrow('algorithm not allowed');
    }
    const none = `${b64({ alg: 'none', kid: gateway.kid })}.${b64(payload)}.`;
    await expect(verifier.verify(none, ['gateway'])).rejects.toThrow(/Invalid internal token/);
    // The gateway's public key used as an HMAC secret (the classic algorithm-confusion attack).
    const spki = gateway.publicEntry.split(':')[2]!;
    await expect(verifier.verify(hs256(spki, payload, { kid: gateway.kid }), ['gateway'])).rejects.toThrow('algorithm not allowed');
  });

  it('refuse expired tokens, tokens without exp and tokens that live too long', async () => {
    const sign = (payload: Record<string, unknown>) => {
      const { kid, key } = parsePrivateKey(gateway.privateKey, 'k');
      const input = `${b64({ alg: 'EdDSA', kid })}.${b64({ ws: 'ws1', iss: 'gateway', aud: 'posts-target', ...payload })}`;
      return `${input}.${cryptoSign(null, Buffer.from(input), key).toString('base64url')}`;
    };

    await expect(verifier.verify(sign({ iat: now() - 120, exp: now() - 60 }), ['gateway'])).rejects.toThrow('expired');
    await expect(verifier.verify(sign({ iat: now() }), ['gateway'])).rejects.toThrow('claim exp rejected');
    await expect(verifier.verify(sign({ iat: now(), exp: now() + 86400 }), ['gateway'])).rejects.toThrow('lifetime too long');
    await expect(verifier.verify(sign({ iat: now() + 3600, exp: now() + 3660 }), ['gateway'])).rejects.toThrow();
    await expect(verifier.verify(sign({ iat: now(), exp: now() + 60 }), ['gateway'])).resolves.toMatchObject({ workspaceId: 'ws1' });
  });

  it('accept two keys of one issuer during a rollover, and only listed ones', async () => {
    const next = generateSigningKeyPair('gateway');
    const both = new TokenVerifier(parsePublicKeys(`${gateway.publicEntry} ${next.publicEntry}`, 'V'), 'posts-target');
    for (const pair of [gateway, next]) {
      const token = await new TokenSigner('gateway', pair.privateKey).sign({ workspaceId: 'ws1' }, { audience: 'posts-target' });
      await expect(both.verify(token, ['gateway'])).resolves.toMatchObject({ issuer: 'gateway' });
    }
    const newOnly = await new TokenSigner('gateway', next.privateKey).sign({ workspaceId: 'ws1' }, { audience: 'posts-target' });
    await expect(verifier.verify(newOnly, ['gateway'])).rejects.toThrow('unknown key id');
  });

  it('reads its key formats strictly, naming the variable', () => {
    expect(publicEntryOf('gateway', gateway.privateKey)).toBe(gateway.publicEntry);
    expect(() => parsePrivateKey('dev-only-internal-secret-change-me', 'GATEWAY_JWT_PRIVATE_KEY')).toThrow(/GATEWAY_JWT_PRIVATE_KEY/);
    expect(() => parsePublicKeys('', 'INTERNAL_JWT_PUBLIC_KEYS')).toThrow('INTERNAL_JWT_PUBLIC_KEYS holds no key');
    expect(() => parsePublicKeys('gateway:k1:AAAA', 'INTERNAL_JWT_PUBLIC_KEYS')).toThrow(/INTERNAL_JWT_PUBLIC_KEYS entry "k1"/);
    expect(() => parsePublicKeys(`${gateway.publicEntry},${gateway.publicEntry}`, 'X')).toThrow('twice');
  });

  it('parses bearer headers strictly', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
