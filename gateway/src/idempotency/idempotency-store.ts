import type Redis from 'ioredis';

/** A response kept for replay: status, the headers a client acts on, and the body bytes. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type Claim =
  | { kind: 'claimed'; release: () => Promise<void>; complete: (r: StoredResponse) => Promise<void> }
  | { kind: 'in-flight' }
  | { kind: 'reused' }
  | { kind: 'replay'; response: StoredResponse };

// One round trip: read the record, or write our pending marker when there is none.
const CLAIM = `
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`;
// Only the request that holds the pending marker may finish or release it (a marker that expired
// and was claimed again belongs to someone else).
const COMPLETE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 end
return 0
`;
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

interface IdempotencyRedis {
  socialIdemClaim(key: string, pending: string, ttlMs: number): Promise<string | null>;
  socialIdemComplete(key: string, pending: string, done: string, ttlMs: number): Promise<number>;
  socialIdemRelease(key: string, pending: string): Promise<number>;
}

/**
 * Idempotency records in Redis, one per (workspace, key): `p|<token>|<fingerprint>` while the first
 * request runs (expiring after the longest a request may take), then `d|<fingerprint>|<response>`
 * for the retention period.
 */
export class IdempotencyStore {
  private readonly redis: IdempotencyRedis;

  constructor(
    redis: Redis,
    private readonly opts: { retentionMs: number; pendingMs: number },
  ) {
    redis.defineCommand('socialIdemClaim', { numberOfKeys: 1, lua: CLAIM });
    redis.defineCommand('socialIdemComplete', { numberOfKeys: 1, lua: COMPLETE });
    redis.defineCommand('socialIdemRelease', { numberOfKeys: 1, lua: RELEASE });
    this.redis = redis as unknown as IdempotencyRedis;
  }

  async claim(workspaceId: string, key: string, fingerprint: string, token: string): Promise<Claim> {
    const redisKey = `gw:idem:${workspaceId}:${key}`;
    const pending = `p|${token}|${fingerprint}`;
    const found = await this.redis.socialIdemClaim(redisKey, pending, this.opts.pendingMs);
    if (found === null) {
      return {
        kind: 'claimed',
        release: async () => {
          await this.redis.socialIdemRelease(redisKey, pending);
        },
        complete: async (r) => {
          const done = `d|${fingerprint}|${JSON.stringify({ s: r.status, h: r.headers, b: r.body.toString('base64') })}`;
          await this.redis.socialIdemComplete(redisKey, pending, done, this.opts.retentionMs);
        },
      };
    }
    const [state, a, b] = splitRecord(found);
    const storedFingerprint = state === 'p' ? b : a;
    if (storedFingerprint !== fingerprint) return { kind: 'reused' };
    if (state === 'p') return { kind: 'in-flight' };
    const r = JSON.parse(b) as { s: number; h: Record<string, string>; b: string };
    return { kind: 'replay', response: { status: r.s, headers: r.h, body: Buffer.from(r.b, 'base64') } };
  }
}

/** `x|first|rest`: the rest may itself contain `|` (the stored JSON). */
function splitRecord(v: string): [string, string, string] {
  const i = v.indexOf('|', 2);
  return [v.slice(0, 1), v.slice(2, i), v.slice(i + 1)];
}
