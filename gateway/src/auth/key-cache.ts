import type Redis from 'ioredis';
import type { KeyRecord } from '../data/workspace.repository';

const PREFIX = 'gw:key:';
const MISSING = 'none';

/**
 * A short Redis cache of key records so authentication costs one round trip instead of two
 * database queries. Revoking deletes the entry, so a revoked key stops working at once.
 */
export class KeyCache {
  constructor(
    private readonly redis: Redis,
    private readonly ttlSeconds: number,
    /** Unknown ids are cached briefly so a flood of bad ids does not reach the database. */
    private readonly missingTtlSeconds = 10,
  ) {}

  /** undefined: not cached; null: cached as unknown. */
  async get(apiId: string): Promise<KeyRecord | null | undefined> {
    const raw = await this.redis.get(PREFIX + apiId);
    if (raw === null) return undefined;
    if (raw === MISSING) return null;
    return JSON.parse(raw) as KeyRecord;
  }

  async set(apiId: string, record: KeyRecord | null): Promise<void> {
    if (record) await this.redis.set(PREFIX + apiId, JSON.stringify(record), 'EX', this.ttlSeconds);
    else await this.redis.set(PREFIX + apiId, MISSING, 'EX', this.missingTtlSeconds);
  }

  async invalidate(apiId: string): Promise<void> {
    await this.redis.del(PREFIX + apiId);
  }
}
