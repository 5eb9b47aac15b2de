import { createHmac, timingSafeEqual } from 'node:crypto';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export interface WebhookHeaders {
  'webhook-id'?: string | null;
  'webhook-timestamp'?: string | null;
  'webhook-signature'?: string | null;
}

/** Node's incoming headers, a fetch `Headers` object, or a plain record. */
type HeaderSource = Headers | WebhookHeaders | Record<string, string | string[] | undefined>;

function read(headers: HeaderSource, name: keyof WebhookHeaders): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const v = (headers as Record<string, unknown>)[name];
  return Array.isArray(v) ? v[0] : typeof v === 'string' ? v : undefined;
}

/** `whsec_<base64>` as Standard Webhooks issues it (a bare base64 secret is taken too). */
function secretBytes(secret: string): Buffer {
  const b64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length === 0) throw new WebhookVerificationError('The webhook secret is empty or not base64.');
  return bytes;
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, the Standard Webhooks signature. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string | Buffer): string {
  const mac = createHmac('sha256', secretBytes(secret)).update(`${id}.${timestampSeconds}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/**
 * Verifies a webhook the Standard Webhooks way and returns the parsed payload: the signature must
 * match one of the `v1` signatures in `webhook-signature` (several during a secret rotation) and the
 * timestamp must be within the tolerance of now (5 minutes), against replays. Pass the raw body,
 * exactly as received: a re-serialised JSON body does not verify.
 */
export function verifyWebhook<T = unknown>(
  secret: string,
  headers: HeaderSource,
  body: string | Buffer,
  opts: { toleranceSeconds?: number; now?: Date } = {},
): T {
  const id = read(headers, 'webhook-id');
  const timestamp = read(headers, 'webhook-timestamp');
  const signatures = read(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature.');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a Unix time in seconds.');
  const tolerance = opts.toleranceSeconds ?? 300;
  const now = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance) throw new WebhookVerificationError('webhook-timestamp is outside the tolerance.');
  const expected = Buffer.from(signWebhook(secret, id, Number(timestamp), body).slice(3), 'base64');
  const matches = signatures.split(' ').some((entry) => {
    const [version, sig] = entry.split(',', 2);
    if (version !== 'v1' || !sig) return false;
    const given = Buffer.from(sig, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('No webhook-signature matches.');
  try {
    return JSON.parse(Buffer.isBuffer(body) ? body.toString('utf8') : body) as T;
  } catch {
    throw new WebhookVerificationError('The webhook body is not JSON.');
  }
}
