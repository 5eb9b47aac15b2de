import type { NetworkCode, NetworkProfile, ProfileKind } from '@social/networks';
import { type AccountStats, audienceOn, statsOf } from './audience.rules';
import { dayOfMs } from './dates';
import type { SeedAccount } from './seed-accounts';

export interface Account extends SeedAccount {
  stats: AccountStats;
}

/**
 * The accounts of every network, loaded once from the database after seeding. They never change
 * while the sandbox runs, so lookups on the hot path (every publish, every metric read) stay in memory.
 */
export class AccountDirectory {
  private readonly byId = new Map<string, Account>();
  private readonly byUsername = new Map<string, Account>();

  constructor(
    readonly seed: string,
    accounts: SeedAccount[],
  ) {
    for (const a of accounts) {
      const account = { ...a, stats: statsOf(seed, a.id, a.kind) };
      this.byId.set(`${a.net}/${a.id}`, account);
      this.byUsername.set(`${a.net}/${a.username.toLowerCase()}`, account);
    }
  }

  get(net: NetworkCode, id: string): Account | undefined {
    return this.byId.get(`${net}/${id}`);
  }

  /** Account ids carry their network's prefix, so an id alone is unambiguous. */
  findById(id: string): Account | undefined {
    for (const a of this.byId.values()) if (a.id === id) return a;
    return undefined;
  }

  findByUsername(net: NetworkCode, username: string): Account | undefined {
    return this.byUsername.get(`${net}/${username.toLowerCase()}`);
  }

  list(net: NetworkCode, kind?: ProfileKind): Account[] {
    return [...this.byId.values()].filter((a) => a.net === net && (kind === undefined || a.kind === kind));
  }

  followersOn(account: Account, nowMs: number): number {
    return audienceOn(this.seed, account.id, account.stats, dayOfMs(nowMs));
  }

  profileOf(account: Account, publicUrl: string, nowMs: number): NetworkProfile {
    return {
      id: account.id,
      name: account.name,
      username: account.username,
      picture: `${publicUrl}/sandbox/pictures/${encodeURIComponent(account.id)}.svg`,
      kind: account.kind,
      followers: this.followersOn(account, nowMs),
    };
  }
}
