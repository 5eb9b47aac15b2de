import { createHmac, randomBytes, sign as edSign } from 'node:crypto';
import {
  generateSigningKeyPair,
  parsePrivateKey,
  parsePublicKeys,
  TokenSigner,
  TokenVerifier,
  type GeneratedKeyPair,
} from '@social/internal-auth';

/**
 * The issuers of internal tokens: the gateway (and its admin command line) for API requests, and
 * the services that make gRPC calls. A process's issuer is its name without a worker suffix.
 */
export const TEST_ISSUERS = ['gateway', 'posts', 'media', 'insights', 'publisher'] as const;
export type TestIssuer = (typeof TEST_ISSUERS)[number];

/** Fresh key pairs for this test process: nothing secret is ever checked in. */
export const TEST_KEYS: Record<TestIssuer, GeneratedKeyPair> = Object.fromEntries(
  TEST_ISSUERS.map((issuer) => [issuer, generateSigningKeyPair(issuer)]),
) as Record<TestIssuer, GeneratedKeyPair>;

export const TEST_PUBLIC_KEYS = TEST_ISSUERS.map((i) => TEST_KEYS[i].publicEntry).join(',');

/** INTERNAL_JWT_PUBLIC_KEYS and every `<ISSUER>_JWT_PRIVATE_KEY`, as a test environment carries them. */
export function testKeyEnv(): Record<string, string> {
  const env: Record<string, string> = { INTERNAL_JWT_PUBLIC_KEYS: TEST_PUBLIC_KEYS };
  for (const issuer of TEST_ISSUERS) env[`${issuer.toUpperCase()}_JWT_PRIVATE_KEY`] = TEST_KEYS[issuer].privateKey;
  return env;
}

/** The issuer whose private key a process of system.json holds (media-worker signs as media). */
export function issuerOfProcess(name: string): TestIssuer | undefined {
  const base = name.replace(/-(worker|collector)$/, '');
  return (TEST_ISSUERS as readonly string[]).includes(base) ? (base as TestIssuer) : undefined;
}

export function testSigner(issuer: TestIssuer): TokenSigner {
  return new TokenSigner(issuer, TEST_KEYS[issuer].privateKey);
}

export function testVerifier(audience: string): TokenVerifier {
  return new TokenVerifier(parsePublicKeys(TEST_PUBLIC_KEYS, 'INTERNAL_JWT_PUBLIC_KEYS'), audience);
}

/** A strong random secret (STORAGE_SIGNING_SECRET, PROFILE_TOKEN_KEY, WEBHOOKS_SECRET_KEY) for one test process. */
export const randomSecret = () => randomBytes(32).toString('base64url');

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export interface TokenParts {
  header?: Record<string, unknown>;
  payload?: Record<string, unknown>;
}

/**
 * Signs synchronously with a test key, so component tests can build headers inline. Written
 * without the library on purpose: tokens made independently must verify with our verifier.
 */
export function signTestToken(issuer: TestIssuer, audience: string, workspaceId: string, parts: TokenParts = {}): string {
  const { kid, key } = parsePrivateKey(TEST_KEYS[issuer].privateKey, 'test key');
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: 'EdDSA', typ: 'JWT', kid, ...parts.header };
  const payload = { ws: workspaceId, iss: issuer, aud: audience, iat: now, exp: now + 60, ...parts.payload };
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${edSign(null, Buffer.from(input), key).toString('base64url')}`;
}

/** A token an attacker could make: HS256 with a guessed secret, or no signature at all. */
export function forgeToken(how: { alg: 'HS256'; secret: string } | { alg: 'none' }, payload: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  const input = `${b64url({ alg: how.alg, typ: 'JWT' })}.${b64url({ iat: now, exp: now + 60, ...payload })}`;
  if (how.alg === 'none') return `${input}.`;
  return `${input}.${createHmac('sha256', how.secret).update(input).digest('base64url')}`;
}

/** An allow-list giving every method of a service definition to the same callers (test doubles). */
export function everyMethod(definition: object, callers: readonly string[]): any {
  return Object.fromEntries(Object.keys(definition).map((method) => [method, callers]));
}
