import { errors as joseErrors, jwtVerify, SignJWT, type JWTHeaderParameters } from 'jose';
import { AppError } from '@social/errors';
import { ALGORITHM, parsePrivateKey, type KeyRing, type PrivateSigningKey } from './keys';

/** The issuer of every token behind the public API; the only one services' HTTP APIs accept. */
export const GATEWAY_ISSUER = 'gateway';

/** No internal token may live longer, whatever its signer asks for (gRPC file streams need minutes). */
export const MAX_TOKEN_TTL_SECONDS = 600;
const CLOCK_TOLERANCE_SECONDS = 5;

export interface InternalClaims {
  workspaceId: string;
  requestId?: string;
  /**
   * The workspace's plan, from the gateway's own database. Read only from gateway-signed tokens:
   * no client and no other service can set it.
   */
  plan?: string;
  /** Who signed the token (verified through the key id): `gateway` or a service name. */
  issuer: string;
}

export class InvalidInternalTokenError extends AppError {
  constructor(reason: string) {
    super('UNAUTHENTICATED', 401, `Invalid internal token: ${reason}.`);
  }
}

export interface SignOptions {
  audience: string;
  ttlSeconds?: number;
}

/** Mints tokens as one issuer with its private key (the gateway, or a service for its gRPC calls). */
export class TokenSigner {
  private readonly signing: PrivateSigningKey;

  constructor(
    readonly issuer: string,
    privateKey: string | PrivateSigningKey,
    variable = `${issuer.toUpperCase()}_JWT_PRIVATE_KEY`,
  ) {
    this.signing = typeof privateKey === 'string' ? parsePrivateKey(privateKey, variable) : privateKey;
  }

  get kid(): string {
    return this.signing.kid;
  }

  sign(claims: Omit<InternalClaims, 'issuer'>, opts: SignOptions): Promise<string> {
    const payload: Record<string, unknown> = { ws: claims.workspaceId };
    if (claims.requestId) payload['rid'] = claims.requestId;
    if (claims.plan) payload['plan'] = claims.plan;
    const now = Math.floor(Date.now() / 1000);
    const ttl = Math.min(opts.ttlSeconds ?? 60, MAX_TOKEN_TTL_SECONDS);
    return new SignJWT(payload)
      .setProtectedHeader({ alg: ALGORITHM, kid: this.signing.kid, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setAudience(opts.audience)
      .setIssuedAt(now)
      .setExpirationTime(now + ttl)
      .sign(this.signing.key);
  }
}

/**
 * Checks tokens addressed to one audience (the service's own name): EdDSA only, a key id from the
 * trusted ring whose issuer is the token's `iss`, an issuer the caller allows, `exp` present, short
 * and not past.
 */
export class TokenVerifier {
  constructor(
    private readonly ring: KeyRing,
    readonly audience: string,
  ) {}

  async verify(token: string, allowedIssuers: readonly string[]): Promise<InternalClaims> {
    let payload: Record<string, unknown>;
    let header: JWTHeaderParameters;
    try {
      const out = await jwtVerify(
        token,
        (h) => {
          const trusted = h.kid === undefined ? undefined : this.ring.get(h.kid);
          if (!trusted) throw new InvalidInternalTokenError('unknown key id');
          return trusted.key;
        },
        {
          algorithms: [ALGORITHM],
          audience: this.audience,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['iss', 'exp', 'iat'],
        },
      );
      payload = out.payload as Record<string, unknown>;
      header = out.protectedHeader;
    } catch (err) {
      if (err instanceof InvalidInternalTokenError) throw err;
      throw new InvalidInternalTokenError(reasonOf(err));
    }
    const issuer = payload['iss'];
    if (this.ring.get(header.kid!)!.issuer !== issuer) throw new InvalidInternalTokenError('key does not belong to the issuer');
    if (typeof issuer !== 'string' || !allowedIssuers.includes(issuer))
      throw new InvalidInternalTokenError(`issuer ${String(issuer)} not allowed here`);
    const { exp, iat } = payload as { exp: number; iat: number };
    const now = Date.now() / 1000;
    if (iat > now + CLOCK_TOLERANCE_SECONDS) throw new InvalidInternalTokenError('issued in the future');
    if (exp - iat > MAX_TOKEN_TTL_SECONDS) throw new InvalidInternalTokenError('lifetime too long');
    const ws = payload['ws'];
    if (typeof ws !== 'string' || ws.length === 0) throw new InvalidInternalTokenError('no workspace');
    const claims: InternalClaims = { workspaceId: ws, issuer };
    if (typeof payload['rid'] === 'string') claims.requestId = payload['rid'];
    if (issuer === GATEWAY_ISSUER && typeof payload['plan'] === 'string') claims.plan = payload['plan'];
    return claims;
  }
}

function reasonOf(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `claim ${err.claim} rejected`;
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'algorithm not allowed';
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'bad signature';
  return 'malformed';
}

/** Reads `Authorization: Bearer <token>`; undefined when absent or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer (\S+)$/.exec(header);
  return m?.[1];
}
