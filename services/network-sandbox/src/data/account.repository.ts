import type { Connection } from '@social/mongo';
import type { NetworkCode, ProfileKind } from '@social/networks';
import type { SeedAccount } from '../domain/seed-accounts';
import { accountModel } from './account.model';

export class AccountRepository {
  private readonly model;

  constructor(conn: Connection) {
    this.model = accountModel(conn);
  }

  /** Idempotent: running the seed again updates names in place and never duplicates an account. */
  async upsertAll(accounts: SeedAccount[]): Promise<void> {
    if (accounts.length === 0) return;
    await this.model.bulkWrite(
      accounts.map((a) => ({
        updateOne: {
          filter: { _id: a.id },
          update: {
            $set: { net: a.net, kind: a.kind, name: a.name, username: a.username, usernameLower: a.username.toLowerCase() },
            $setOnInsert: { seededAt: new Date() },
          },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  async listAll(): Promise<SeedAccount[]> {
    const docs = await this.model.find({}).lean();
    return docs.map((d) => ({
      id: d._id,
      net: d.net as NetworkCode,
      kind: d.kind as ProfileKind,
      name: d.name,
      username: d.username,
    }));
  }
}
