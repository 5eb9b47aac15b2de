import type { Connection } from '@social/mongo';
import { type PublishedPostDoc, publishedPostModel } from './published-post.model';

export class PublishedPostRepository {
  private readonly model;

  constructor(conn: Connection) {
    this.model = publishedPostModel(conn);
  }

  /**
   * Throws a duplicate-key error (code 11000) when the key was used already. Goes straight to the
   * driver: the use case builds the whole document, and mongoose's save path costs about half
   * again per insert, which publish benchmarks feel.
   */
  async insert(doc: PublishedPostDoc): Promise<void> {
    await this.model.collection.insertOne(doc as unknown as Parameters<typeof this.model.collection.insertOne>[0]);
  }

  async findByKey(net: string, accountId: string, idempotencyKey: string): Promise<PublishedPostDoc | null> {
    return this.model.findOne({ net, accountId, idempotencyKey }).lean();
  }

  async listByAccount(net: string, accountId: string): Promise<PublishedPostDoc[]> {
    return this.model.find({ net, accountId }).lean();
  }

  /** How many posts were published; for progress polling, where the listing is too heavy. */
  async count(): Promise<number> {
    return this.model.estimatedDocumentCount();
  }

  /** For the admin listing; both filters optional. */
  async list(filter: { net?: string; accountId?: string }): Promise<PublishedPostDoc[]> {
    const q: Record<string, string> = {};
    if (filter.net) q['net'] = filter.net;
    if (filter.accountId) q['accountId'] = filter.accountId;
    return this.model.find(q).lean();
  }
}
