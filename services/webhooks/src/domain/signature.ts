import { createHmac, randomBytes } from 'node:crypto';

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

export function signedHeaders(secret: string, id: string, body: string, now: Date): Record<string, string> {
  const ts = Math.floor(now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'social-api-webhooks/1.0',
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': sign(secret, id, ts, body),
  };
}
