import type Redis from 'ioredis';
import type { KeyRecord } from '../data/workspace.repository';

const PREFIX = 'gw:key:';
const MISSING = 'none';
const INVALIDATION_CHANNEL = 'gw:key-invalidated';

interface LocalEntry {
  record: KeyRecord | null;
  expiresAt: number;
}

export interface KeyCacheOptions {
  ttlSeconds: number;
  /** Unknown ids are cached briefly so a flood of bad ids does not reach the database. */
  missingTtlSeconds?: number;
  /** In-process layer in front of Redis; 0 turns it off. */
  localTtlMs?: number;
}

/**
 * Key records cached in Redis (shared by every gateway replica) and, for a few seconds, in
 * process, so most requests need no lookup at all. Revoking deletes the Redis entry and announces
 * it on a channel every gateway listens to; while a gateway is not subscribed (Redis down or
 * reconnecting) it does not use its local layer, so a revocation is never missed.
 */
export class KeyCache {
  private readonly local = new Map<string, LocalEntry>();
  private subscriber: Redis | undefined;
  private subscribed = false;
  private readonly ttlSeconds: number;
  private readonly missingTtlSeconds: number;
  private readonly localTtlMs: number;

  constructor(
    private readonly redis: Redis,
    opts: KeyCacheOptions,
  ) {
    this.ttlSeconds = opts.ttlSeconds;
    this.missingTtlSeconds = opts.missingTtlSeconds ?? 10;
    this.localTtlMs = opts.localTtlMs ?? 0;
  }

  /** Starts listening for invalidations (gateways do; the admin CLI only publishes). */
  async listen(): Promise<void> {
    if (this.localTtlMs <= 0) return;
    const sub = this.redis.duplicate();
    this.subscriber = sub;
    const off = () => {
      this.subscribed = false;
      this.local.clear();
    };
    sub.on('close', off);
    sub.on('reconnecting', off);
    sub.on('end', off);
    // ioredis re-subscribes after a reconnect and then emits 'ready' again.
    sub.on('ready', () => {
      this.subscribed = true;
    });
    sub.on('message', (_channel: string, apiId: string) => this.local.delete(apiId));
    await sub.subscribe(INVALIDATION_CHANNEL);
    this.subscribed = true;
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    this.local.clear();
  }

  /** undefined: not cached; null: cached as unknown. */
  async get(apiId: string): Promise<KeyRecord | null | undefined> {
    if (this.subscribed) {
      const hit = this.local.get(apiId);
      if (hit && hit.expiresAt > Date.now()) return hit.record;
      if (hit) this.local.delete(apiId);
    }
    const raw = await this.redis.get(PREFIX + apiId);
    if (raw === null) return undefined;
    const record = raw === MISSING ? null : (JSON.parse(raw) as KeyRecord);
    this.remember(apiId, record);
    return record;
  }

  async set(apiId: string, record: KeyRecord | null): Promise<void> {
    if (record) await this.redis.set(PREFIX + apiId, JSON.stringify(record), 'EX', this.ttlSeconds);
    else await this.redis.set(PREFIX + apiId, MISSING, 'EX', this.missingTtlSeconds);
    this.remember(apiId, record);
  }

  async invalidate(apiId: string): Promise<void> {
    this.local.delete(apiId);
    await this.redis.del(PREFIX + apiId);
    await this.redis.publish(INVALIDATION_CHANNEL, apiId);
  }

  private remember(apiId: string, record: KeyRecord | null): void {
    if (!this.subscribed || this.localTtlMs <= 0) return;
    const ttl = record ? this.localTtlMs : Math.min(this.localTtlMs, this.missingTtlSeconds * 1000);
    this.local.set(apiId, { record, expiresAt: Date.now() + ttl });
    // Bounded: a flood of distinct ids must not grow the map without limit.
    if (this.local.size > 100_000) this.local.delete(this.local.keys().next().value as string);
  }
}
