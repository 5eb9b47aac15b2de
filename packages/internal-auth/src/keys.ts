import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';

/**
 * Internal tokens are signed with Ed25519 (JWS alg EdDSA). Only the holder of a private key can
 * sign, so a service, which holds only public keys and its own private key, can never mint a token
 * another service would take for the gateway's.
 *
 * Text forms, short enough for an environment variable:
 * - a private key: `<kid>:<base64 PKCS#8 DER>` (GATEWAY_JWT_PRIVATE_KEY, POSTS_JWT_PRIVATE_KEY, …);
 * - the trusted public keys: entries `<issuer>:<kid>:<base64 SPKI DER>` separated by commas or
 *   whitespace (INTERNAL_JWT_PUBLIC_KEYS). Two entries for one issuer is a key rollover.
 */
export const ALGORITHM = 'EdDSA';

const KID = /^[A-Za-z0-9._-]{1,64}$/;
const ISSUER = /^[a-z][a-z0-9-]{0,39}$/;

export class KeyFormatError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'KeyFormatError';
  }
}

export interface PrivateSigningKey {
  kid: string;
  key: KeyObject;
}

export interface TrustedKey {
  issuer: string;
  kid: string;
  key: KeyObject;
}

/** kid → key; the kid names the issuer the key may sign for. */
export type KeyRing = ReadonlyMap<string, TrustedKey>;

export function parsePrivateKey(value: string, variable: string): PrivateSigningKey {
  const i = value.indexOf(':');
  const kid = value.slice(0, i);
  if (i < 0 || !KID.test(kid))
    throw new KeyFormatError(variable, 'must be "<kid>:<base64 PKCS#8 Ed25519 key>" (pnpm start and `pnpm keys` make one)');
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: Buffer.from(value.slice(i + 1).trim(), 'base64'), format: 'der', type: 'pkcs8' });
  } catch {
    throw new KeyFormatError(variable, 'does not hold a readable PKCS#8 private key after "<kid>:"');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new KeyFormatError(variable, `must be an Ed25519 key (got ${key.asymmetricKeyType})`);
  return { kid, key };
}

export function parsePublicKeys(value: string, variable: string): KeyRing {
  const ring = new Map<string, TrustedKey>();
  for (const entry of value.split(/[\s,]+/).filter(Boolean)) {
    const [issuer, kid, b64, extra] = entry.split(':');
    if (!issuer || !kid || !b64 || extra !== undefined || !ISSUER.test(issuer) || !KID.test(kid)) {
      throw new KeyFormatError(variable, `has a malformed entry "${entry.slice(0, 40)}": use "<issuer>:<kid>:<base64 SPKI Ed25519 key>"`);
    }
    if (ring.has(kid)) throw new KeyFormatError(variable, `names the key id "${kid}" twice`);
    let key: KeyObject;
    try {
      key = createPublicKey({ key: Buffer.from(b64, 'base64'), format: 'der', type: 'spki' });
    } catch {
      throw new KeyFormatError(variable, `entry "${kid}" does not hold a readable SPKI public key`);
    }
    if (key.asymmetricKeyType !== 'ed25519') throw new KeyFormatError(variable, `entry "${kid}" must be an Ed25519 key`);
    ring.set(kid, { issuer, kid, key });
  }
  if (ring.size === 0) throw new KeyFormatError(variable, 'holds no key');
  return ring;
}

/** The public half of a private key, as an INTERNAL_JWT_PUBLIC_KEYS entry for `issuer`. */
export function publicEntryOf(issuer: string, privateKey: string): string {
  const { kid, key } = parsePrivateKey(privateKey, 'private key');
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return `${issuer}:${kid}:${spki.toString('base64')}`;
}

export interface GeneratedKeyPair {
  /** `<kid>:<base64 PKCS#8>`, for `<ISSUER>_JWT_PRIVATE_KEY`. */
  privateKey: string;
  /** `<issuer>:<kid>:<base64 SPKI>`, one entry of INTERNAL_JWT_PUBLIC_KEYS. */
  publicEntry: string;
  kid: string;
}

/** A fresh key pair; the kid names the issuer, the day and a random suffix (unique across rollovers). */
export function generateSigningKeyPair(issuer: string, now = new Date()): GeneratedKeyPair {
  if (!ISSUER.test(issuer)) throw new Error(`not an issuer name: ${issuer}`);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const day = now.toISOString().slice(0, 10).replaceAll('-', '');
  const kid = `${issuer}-${day}-${randomBytes(3).toString('hex')}`;
  const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
  const spki = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
  return { privateKey: `${kid}:${pkcs8}`, publicEntry: `${issuer}:${kid}:${spki}`, kid };
}
