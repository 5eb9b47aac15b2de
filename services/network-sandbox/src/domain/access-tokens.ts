import { createHash, randomBytes } from 'node:crypto';
import type { NetworkCode } from '@social/networks';
import type { Account, AccountDirectory } from './account-directory';
import type { TokenStore } from './ports';
import { accountNotFound, notConnectable, tokenInvalid, tokenMissing, tokenRevoked } from './sandbox.errors';

interface TokenOwner {
  net: string;
  accountId: string;
}

const CACHE_MS = 30_000;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * The sandbox's stand-in for OAuth: tokens are issued for OWN accounts (the ones a workspace can
 * connect) and checked on every call. Valid tokens are cached briefly; revocation goes through this
 * process and clears the cache, so a revoked token fails on the very next call.
 */
export class AccessTokens {
  private readonly cache = new Map<string, { owner: TokenOwner; until: number }>();

  constructor(
    private readonly repo: TokenStore,
    private readonly directory: AccountDirectory,
  ) {}

  async issue(net: NetworkCode, accountId: string): Promise<string> {
    const account = this.directory.get(net, accountId);
    if (!account) throw accountNotFound(net, accountId);
    if (account.kind !== 'own') throw notConnectable(accountId);
    const token = `sbx_${randomBytes(24).toString('base64url')}`;
    await this.repo.insert(net, accountId, sha256(token));
    return token;
  }

  async revokeAll(net: NetworkCode, accountId: string): Promise<number> {
    if (!this.directory.get(net, accountId)) throw accountNotFound(net, accountId);
    for (const [hash, entry] of this.cache) {
      if (entry.owner.net === net && entry.owner.accountId === accountId) this.cache.delete(hash);
    }
    return this.repo.revokeAll(net, accountId);
  }

  /** The account a token belongs to; throws 401 for a missing, unknown or revoked token. */
  async ownerOf(token: string | undefined): Promise<TokenOwner> {
    if (!token) throw tokenMissing();
    const hash = sha256(token);
    const hit = this.cache.get(hash);
    if (hit && hit.until > Date.now()) return hit.owner;
    const doc = await this.repo.findByHash(hash);
    if (!doc) throw tokenInvalid();
    if (doc.revokedAt) throw tokenRevoked();
    const owner = { net: doc.net, accountId: doc.accountId };
    this.cache.set(hash, { owner, until: Date.now() + CACHE_MS });
    return owner;
  }

  /** For calls only the account itself may make (publishing, searching on its behalf). */
  async requireOwner(account: Account, token: string | undefined): Promise<void> {
    const owner = await this.ownerOf(token);
    if (owner.net !== account.net || owner.accountId !== account.id) throw tokenInvalid();
  }

  /**
   * For reads: the account's own token reads everything; no token, or another account's token of the
   * same network, reads the account as a public profile (how competitors are read).
   */
  async readerOf(account: Account, token: string | undefined): Promise<'own' | 'public'> {
    if (!token) return 'public';
    const owner = await this.ownerOf(token);
    if (owner.net !== account.net) throw tokenInvalid();
    return owner.accountId === account.id ? 'own' : 'public';
  }
}
