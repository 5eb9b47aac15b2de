import type { Connection } from '@social/mongo';
import type { IssuedToken, TokenStore } from '../domain/ports';
import { tokenModel } from './token.model';

export class TokenRepository implements TokenStore {
  private readonly model;

  constructor(conn: Connection) {
    this.model = tokenModel(conn);
  }

  async insert(net: string, accountId: string, tokenHash: string): Promise<void> {
    await this.model.create({ _id: tokenHash, net, accountId, issuedAt: new Date(), revokedAt: null });
  }

  async findByHash(tokenHash: string): Promise<IssuedToken | null> {
    const d = await this.model.findById(tokenHash).lean();
    return d ? { net: d.net, accountId: d.accountId, revokedAt: d.revokedAt ?? null } : null;
  }

  /** Revokes every live token of the account; returns how many. */
  async revokeAll(net: string, accountId: string): Promise<number> {
    const r = await this.model.updateMany({ net, accountId, revokedAt: null }, { $set: { revokedAt: new Date() } });
    return r.modifiedCount;
  }
}
