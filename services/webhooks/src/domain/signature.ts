import { createHmac, randomBytes } from 'node:crypto';
import type { Endpoint } from './ports';

const PREFIX = 'whsec_';

/** A new endpoint secret: 32 random bytes, `whsec_<base64>` as Standard Webhooks writes it. */
export const newSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

/**
 * The Standard Webhooks signature: HMAC-SHA256 with the secret's base64-decoded bytes over
 * `<webhook-id>.<webhook-timestamp>.<body>`, sent as `v1,<base64>`.
 */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The headers of one attempt. Several secrets (during a rotation: the new one first, then the
 * previous) give several space-separated signatures, as Standard Webhooks allows; a receiver that
 * knows either secret accepts the request.
 */
export function signedHeaders(secrets: string | readonly string[], id: string, body: string, now: Date): Record<string, string> {
  const ts = Math.floor(now.getTime() / 1000);
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'content-type': 'application/json',
    'user-agent': 'social-api-webhooks/1.0',
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': keys.map((k) => sign(k, id, ts, body)).join(' '),
  };
}

/** The secrets that sign a delivery at `now`: the current one, and the previous one during its grace period. */
export const signingSecrets = (e: Pick<Endpoint, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>, now: Date): string[] =>
  e.previousSecret && e.previousSecretExpiresAt && e.previousSecretExpiresAt.getTime() > now.getTime()
    ? [e.secret, e.previousSecret]
    : [e.secret];
