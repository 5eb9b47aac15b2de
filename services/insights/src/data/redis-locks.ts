import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { Locks } from '../domain/ports';

// Compare-and-delete in one step, so a replica whose lock expired never frees another's.
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export class RedisLocks implements Locks {
  constructor(
    private readonly redis: Redis,
    /** Keeps systems and test runs sharing one Redis apart. */
    private readonly prefix: string,
  ) {}

  async tryAcquire(name: string, ttlMs: number): Promise<string | null> {
    const token = randomUUID();
    const ok = await this.redis.set(this.key(name), token, 'PX', ttlMs, 'NX');
    return ok === 'OK' ? token : null;
  }

  async release(name: string, token: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key(name), token);
  }

  private key(name: string): string {
    return `${this.prefix}insights:lock:${name}`;
  }
}
