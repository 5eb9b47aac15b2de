import type { Connection } from '@social/mongo';
import { hourOf, LEGACY_KEY_INDEX, type PublishedPostDoc, publishedPostModel } from './published-post.model';

/** The fields of a post the network's listing shows. */
export type ListedPostDoc = Pick<PublishedPostDoc, '_id' | 'publishedAt' | 'type' | 'caption' | 'firstComment' | 'media' | 'links'>;

/** A position in an account's listing (newest first): the last post of the previous page. */
export interface ListingPosition {
  publishedAtMs: number;
  id: string;
}

const LISTED = { _id: 1, publishedAt: 1, type: 1, caption: 1, firstComment: 1, 'media.mimeType': 1, links: 1 };

/** Hours of a listing range read one by one; a longer range is read in one query. */
const MAX_HOURS_WALKED = 48;

// MongoDB error codes of a drop that has nothing to drop.
const NAMESPACE_NOT_FOUND = 26;
const INDEX_NOT_FOUND = 27;

export class PublishedPostRepository {
  private readonly model;

  constructor(conn: Connection) {
    this.model = publishedPostModel(conn);
  }

  /**
   * The earlier version kept a unique index on (net, account, key) for every post. Posts that hold
   * no key lack that field, which MongoDB would index as duplicate nulls: drop it (once; later starts
   * find nothing to drop).
   */
  async dropLegacyIndexes(): Promise<void> {
    try {
      await this.model.collection.dropIndex(LEGACY_KEY_INDEX);
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code !== INDEX_NOT_FOUND && code !== NAMESPACE_NOT_FOUND) throw err;
    }
  }

  /**
   * Throws a duplicate-key error (code 11000) when the post holds a key another post holds. Goes
   * straight to the driver: the use case builds the whole document, and mongoose's save path costs
   * about half again per insert, which publish benchmarks feel. A post without a key must not carry
   * the field at all (a null would be indexed).
   */
  async insert(doc: PublishedPostDoc): Promise<void> {
    await this.model.collection.insertOne(doc as unknown as Parameters<typeof this.model.collection.insertOne>[0]);
  }

  async findByHeldKey(heldKey: string): Promise<PublishedPostDoc | null> {
    return this.model.findOne({ heldKey }).lean();
  }

  /** Compare-and-set: the post stops holding the key if it still does; true for the one caller that did it. */
  async releaseKey(id: string, heldKey: string): Promise<boolean> {
    const r = await this.model.updateOne({ _id: id, heldKey }, { $unset: { heldKey: '' } });
    return r.modifiedCount === 1;
  }

  /**
   * The account's posts published in [sinceMs, untilMs], after `before` when given, newest first
   * (ties by id, descending), at most `limit`. Reads hour by hour from the newest, one equality
   * query each (answered from the index on MongoDB and FerretDB alike), and stops once it has
   * `limit`: a page costs the posts of the hours it touches, not the account's whole history. A
   * range of more hours than that is worth walking is read in one query instead.
   */
  async listRecent(
    net: string,
    accountId: string,
    q: { sinceMs: number; untilMs: number; before?: ListingPosition; limit: number },
  ): Promise<ListedPostDoc[]> {
    const upToMs = Math.min(q.untilMs, q.before?.publishedAtMs ?? Number.POSITIVE_INFINITY);
    if (upToMs < q.sinceMs) return [];
    const newest = hourOf(upToMs);
    const oldest = hourOf(q.sinceMs);
    const page = (publishedHour: unknown, limit: number) => {
      const filter: Record<string, unknown> = {
        net,
        accountId,
        publishedHour,
        publishedAt: { $gte: new Date(q.sinceMs), $lte: new Date(upToMs) },
      };
      if (q.before) filter['$or'] = [{ publishedAt: { $lt: new Date(q.before.publishedAtMs) } }, { _id: { $lt: q.before.id } }];
      return this.model.find(filter, LISTED).sort({ publishedAt: -1, _id: -1 }).limit(limit).lean<ListedPostDoc[]>();
    };
    if (newest - oldest >= MAX_HOURS_WALKED) return page({ $gte: oldest, $lte: newest }, q.limit);
    const out: ListedPostDoc[] = [];
    for (let hour = newest; hour >= oldest && out.length < q.limit; hour--) out.push(...(await page(hour, q.limit - out.length)));
    return out;
  }

  async listByAccount(net: string, accountId: string): Promise<PublishedPostDoc[]> {
    return this.model.find({ net, accountId }).lean();
  }

  /** How many posts were published; for progress polling, where the listing is too heavy. */
  async count(): Promise<number> {
    return this.model.estimatedDocumentCount();
  }

  /** For the admin listing; every filter optional. */
  async list(filter: { net?: string; accountId?: string; clientKeyPrefix?: string }): Promise<PublishedPostDoc[]> {
    const q: Record<string, string> = {};
    if (filter.net) q['net'] = filter.net;
    if (filter.accountId) q['accountId'] = filter.accountId;
    const docs = (await this.model.find(q).lean()).map(withClientKey);
    const prefix = filter.clientKeyPrefix;
    return prefix ? docs.filter((d) => d.clientKey.startsWith(prefix)) : docs;
  }
}

/** Posts stored by the earlier version name the key `idempotencyKey`. */
function withClientKey(doc: PublishedPostDoc & { idempotencyKey?: string }): PublishedPostDoc {
  if (doc.clientKey !== undefined) return doc;
  const { idempotencyKey, ...rest } = doc;
  return { ...rest, clientKey: idempotencyKey ?? '' };
}
