import type { Connection } from '@social/mongo';
import { type TokenDoc, tokenModel } from './token.model';

export class TokenRepository {
  private readonly model;

  constructor(conn: Connection) {
    this.model = tokenModel(conn);
  }

  async insert(net: string, accountId: string, tokenHash: string): Promise<void> {
    await this.model.create({ _id: tokenHash, net, accountId, issuedAt: new Date(), revokedAt: null });
  }

  async findByHash(tokenHash: string): Promise<TokenDoc | null> {
    return this.model.findById(tokenHash).lean();
  }

  /** Revokes every live token of the account; returns how many. */
  async revokeAll(net: string, accountId: string): Promise<number> {
    const r = await this.model.updateMany({ net, accountId, revokedAt: null }, { $set: { revokedAt: new Date() } });
    return r.modifiedCount;
  }
}
