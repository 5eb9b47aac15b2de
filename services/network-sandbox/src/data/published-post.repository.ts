import type { Connection } from '@social/mongo';
import { type PublishedPostDoc, publishedPostModel } from './published-post.model';

export class PublishedPostRepository {
  private readonly model;

  constructor(conn: Connection) {
    this.model = publishedPostModel(conn);
  }

  /** Throws a duplicate-key error (code 11000) when the key was used already. */
  async insert(doc: PublishedPostDoc): Promise<void> {
    await this.model.create(doc);
  }

  async findByKey(net: string, accountId: string, idempotencyKey: string): Promise<PublishedPostDoc | null> {
    return this.model.findOne({ net, accountId, idempotencyKey }).lean();
  }

  /** Counts one more request with a used key and returns the post published under it. */
  async recordReplay(net: string, accountId: string, idempotencyKey: string): Promise<PublishedPostDoc | null> {
    return this.model
      .findOneAndUpdate({ net, accountId, idempotencyKey }, { $inc: { attempts: 1 } }, { new: true })
      .lean();
  }

  async listByAccount(net: string, accountId: string): Promise<PublishedPostDoc[]> {
    return this.model.find({ net, accountId }).lean();
  }

  /** For the admin listing; both filters optional. */
  async list(filter: { net?: string; accountId?: string }): Promise<PublishedPostDoc[]> {
    const q: Record<string, string> = {};
    if (filter.net) q['net'] = filter.net;
    if (filter.accountId) q['accountId'] = filter.accountId;
    return this.model.find(q).lean();
  }
}
