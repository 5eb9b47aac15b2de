import { sandboxPostsStored } from '@social/metrics';
import { Batcher, type Connection, insertEach, type InsertOutcome } from '@social/mongo';
import type { ListedPostRecord, ListingPosition, PublishedPost, PublishedPostStore } from '../domain/ports';
import { hourOf, LEGACY_KEY_INDEX, type PublishedPostDoc, publishedPostModel } from './published-post.model';

/** The fields of a post the network's listing shows. */
type ListedPostDoc = Pick<PublishedPostDoc, '_id' | 'publishedAt' | 'type' | 'caption' | 'firstComment' | 'media' | 'links'>;

const LISTED = { _id: 1, publishedAt: 1, type: 1, caption: 1, firstComment: 1, 'media.mimeType': 1, links: 1 };

/** Hours of a listing range read one by one; a longer range is read in one query. */
const MAX_HOURS_WALKED = 48;

const stored = sandboxPostsStored();

// MongoDB error codes of a drop that has nothing to drop.
const NAMESPACE_NOT_FOUND = 26;
const INDEX_NOT_FOUND = 27;

export class PublishedPostRepository implements PublishedPostStore {
  private readonly model;
  /** Publishes that store their post together share one insert command (see Batcher). */
  private readonly inserts: Batcher<PublishedPostDoc, InsertOutcome>;

  constructor(conn: Connection) {
    this.model = publishedPostModel(conn);
    // GROUP_COMMIT, with its bound: an insert command that hangs fails its publishes (retried).
    this.inserts = new Batcher((docs, limits) => insertEach(this.model.collection, docs, limits));
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
   * False on a duplicate key (code 11000) when the post would hold a key another post holds. Goes
   * straight to the driver: the use case builds the whole document, and mongoose's save path costs
   * about half again per insert, which publish benchmarks feel; publishes that store at the same
   * moment share one insert command. A post without a key must not carry the field at all (a null
   * would be indexed).
   */
  async insert(post: PublishedPost, heldKey?: string): Promise<boolean> {
    const { id, ...fields } = post;
    const doc: PublishedPostDoc = {
      _id: id,
      ...fields,
      ...(heldKey === undefined ? {} : { heldKey }),
      publishedHour: hourOf(post.publishedAt.getTime()),
    };
    const outcome = await this.inserts.push(doc);
    if (outcome === 'inserted') {
      stored.inc({ net: post.net });
      return true;
    }
    if (outcome === 'duplicate' && heldKey !== undefined) return false;
    throw outcome === 'duplicate' ? new Error(`published post ${id} exists already`) : outcome;
  }

  async findByHeldKey(heldKey: string): Promise<PublishedPost | null> {
    const d = await this.model.findOne({ heldKey }).lean();
    return d ? toPost(d) : null;
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
  ): Promise<ListedPostRecord[]> {
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
    if (newest - oldest >= MAX_HOURS_WALKED) return (await page({ $gte: oldest, $lte: newest }, q.limit)).map(toListed);
    const out: ListedPostRecord[] = [];
    for (let hour = newest; hour >= oldest && out.length < q.limit; hour--) {
      out.push(...(await page(hour, q.limit - out.length)).map(toListed));
    }
    return out;
  }

  async listByAccount(net: string, accountId: string): Promise<PublishedPost[]> {
    return (await this.model.find({ net, accountId }).lean()).map(toPost);
  }

  /** How many posts were published; for progress polling, where the listing is too heavy. */
  async count(): Promise<number> {
    return this.model.estimatedDocumentCount();
  }

  /** For the admin listing; every filter optional. */
  async list(filter: { net?: string; accountId?: string; clientKeyPrefix?: string }): Promise<PublishedPost[]> {
    const q: Record<string, string> = {};
    if (filter.net) q['net'] = filter.net;
    if (filter.accountId) q['accountId'] = filter.accountId;
    const docs = (await this.model.find(q).lean()).map(withClientKey).map(toPost);
    const prefix = filter.clientKeyPrefix;
    return prefix ? docs.filter((d) => d.clientKey.startsWith(prefix)) : docs;
  }
}

/** The stored document as the domain's record (no key held, no index fields). */
function toPost(d: PublishedPostDoc): PublishedPost {
  return {
    id: d._id,
    net: d.net,
    accountId: d.accountId,
    clientKey: d.clientKey,
    fingerprint: d.fingerprint,
    type: d.type,
    caption: d.caption,
    firstComment: d.firstComment,
    media: d.media,
    links: d.links,
    settingsJson: d.settingsJson,
    publishedAt: d.publishedAt,
  };
}

function toListed(d: ListedPostDoc): ListedPostRecord {
  return {
    id: d._id,
    publishedAt: d.publishedAt,
    type: d.type,
    caption: d.caption,
    firstComment: d.firstComment,
    media: d.media,
    links: d.links,
  };
}

/** Posts stored by the earlier version name the key `idempotencyKey`. */
function withClientKey(doc: PublishedPostDoc & { idempotencyKey?: string }): PublishedPostDoc {
  if (doc.clientKey !== undefined) return doc;
  const { idempotencyKey, ...rest } = doc;
  return { ...rest, clientKey: idempotencyKey ?? '' };
}
