import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { AppError } from '@social/errors';

/**
 * The gateway signs one short-lived token per request; a service accepts only tokens whose
 * audience is its own name, so a token captured in front of one service is useless at another.
 */
export interface InternalClaims {
  workspaceId: string;
  requestId?: string;
  /** Plan of the workspace, so services can apply plan limits without asking the gateway. */
  plan?: string;
  /** Set by verifyInternalToken: who signed the token (the gateway, or the calling service's name). */
  issuer?: string;
}

const ISSUER = 'social-gateway';

// Given a string secret, jsonwebtoken first tries to parse it as a PEM private key (and fails) on
// every call, which costs about a millisecond; a cached KeyObject skips that.
const keys = new Map<string, KeyObject>();
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}
const ALGORITHM = 'HS256';

export interface SignOptions {
  secret: string;
  audience: string;
  ttlSeconds?: number;
  /** Who signs: the gateway for API requests, a service name for service-to-service calls. */
  issuer?: string;
}

export function signInternalToken(claims: InternalClaims, opts: SignOptions): string {
  const payload: Record<string, unknown> = { ws: claims.workspaceId };
  if (claims.requestId) payload['rid'] = claims.requestId;
  if (claims.plan) payload['plan'] = claims.plan;
  return jwt.sign(payload, keyOf(opts.secret), {
    algorithm: ALGORITHM,
    audience: opts.audience,
    issuer: opts.issuer ?? ISSUER,
    expiresIn: opts.ttlSeconds ?? 60,
  });
}

export interface VerifyOptions {
  secret: string;
  audience: string;
}

export class InvalidInternalTokenError extends AppError {
  constructor(reason: string) {
    super('UNAUTHENTICATED', 401, `Invalid internal token: ${reason}.`);
  }
}

export function verifyInternalToken(token: string, opts: VerifyOptions): InternalClaims {
  let decoded: jwt.JwtPayload;
  try {
    const out = jwt.verify(token, keyOf(opts.secret), { algorithms: [ALGORITHM], audience: opts.audience });
    if (typeof out === 'string') throw new Error('unexpected string payload');
    decoded = out;
  } catch (err) {
    throw new InvalidInternalTokenError((err as Error).message);
  }
  const ws = decoded['ws'];
  if (typeof ws !== 'string' || ws.length === 0) throw new InvalidInternalTokenError('no workspace');
  const claims: InternalClaims = { workspaceId: ws };
  if (typeof decoded['rid'] === 'string') claims.requestId = decoded['rid'];
  if (typeof decoded['plan'] === 'string') claims.plan = decoded['plan'];
  if (typeof decoded.iss === 'string') claims.issuer = decoded.iss;
  return claims;
}

/** Reads `Authorization: Bearer <token>`; undefined when absent or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer (\S+)$/.exec(header);
  return m?.[1];
}
