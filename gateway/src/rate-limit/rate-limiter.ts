import type Redis from 'ioredis';

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  windowSeconds: number;
}

// Fixed window counter in one round trip: INCR, and set the expiry when the window opens.
const SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
return {n, ttl}
`;

/** Per-workspace request limit shared by every gateway replica (the counter lives in Redis). */
export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly windowSeconds: number,
  ) {
    redis.defineCommand('socialRateLimit', { numberOfKeys: 1, lua: SCRIPT });
  }

  async hit(workspaceId: string, limit: number, now = Date.now()): Promise<RateLimitResult> {
    const windowMs = this.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs);
    const key = `gw:rl:${workspaceId}:${windowStart}`;
    const [count, ttl] = (await (this.redis as unknown as RateLimitRedis).socialRateLimit(key, windowMs)) as [number, number];
    const resetMs = ttl > 0 ? ttl : windowMs - (now % windowMs);
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
      windowSeconds: this.windowSeconds,
    };
  }
}

interface RateLimitRedis {
  socialRateLimit(key: string, windowMs: number): Promise<unknown>;
}

/** IETF RateLimit header fields (draft 7 syntax, as express-rate-limit emits them). */
export function rateLimitHeaders(r: RateLimitResult): Record<string, string> {
  const headers: Record<string, string> = {
    'RateLimit-Policy': `${r.limit};w=${r.windowSeconds}`,
    RateLimit: `limit=${r.limit}, remaining=${r.remaining}, reset=${r.resetSeconds}`,
  };
  if (!r.allowed) headers['Retry-After'] = String(r.resetSeconds);
  return headers;
}
