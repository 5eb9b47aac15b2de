import { randomUUID } from 'node:crypto';
import {
  Batcher,
  GROUP_COMMIT,
  insertEach,
  isDuplicateKeyError,
  type BatcherOptions,
  type Connection,
  type RunLimits,
} from '@social/mongo';
import type { AttemptStart, Ledger, LedgerEntry } from '../domain/ports';
import { ledgerModel, networkPostClaimModel, type LedgerDoc } from './ledger.model';

interface PublishedWrite {
  key: string;
  attemptId: string;
  set: Pick<LedgerDoc, 'state' | 'networkPostId' | 'publishedAt' | 'error' | 'final' | 'retryAt' | 'updatedAt'>;
}

const toEntry = ({ _id, updatedAt: _u, migratedFrom: _m, idempotencyKeys, calledUntil, ...rest }: LedgerDoc): LedgerEntry => ({
  key: _id,
  ...rest,
  idempotencyKeys: idempotencyKeys ?? null,
  calledUntil: calledUntil ?? null,
});

/** The fields of a new attempt (the first of a key, or one after NOT_PUBLISHED). */
function attemptFields(start: AttemptStart, attempts: number, now: Date) {
  const base = {
    revision: start.revision,
    attemptId: randomUUID(),
    attempts,
    // A new attempt sends the entry's key and is called once, now.
    idempotencyKeys: null,
    calledUntil: null,
    networkPostId: null,
    publishedAt: null,
    retryAt: null,
    updatedAt: now,
  };
  return start.state === 'CALLING'
    ? {
        ...base,
        state: 'CALLING' as const,
        accountId: start.accountId,
        calledAt: now,
        fingerprint: start.fingerprint,
        error: null,
        final: false,
      }
    : { ...base, state: 'NOT_PUBLISHED' as const, accountId: null, calledAt: null, fingerprint: null, error: start.error, final: true };
}

/**
 * The ledger on MongoDB's single-document guarantees: the unique `_id` decides which copy of a job
 * starts the first attempt, and every later change is a compare-and-set on the attempt it expects.
 */
export class LedgerRepository implements Ledger {
  private readonly model;
  private readonly claims;
  /**
   * The two writes every publish makes (the first attempt, and PUBLISHED) go through batchers:
   * jobs that reach them together share one command (see Batcher).
   */
  private readonly inserts: Batcher<LedgerDoc, 'inserted' | 'duplicate'>;
  private readonly publishes: Batcher<PublishedWrite, boolean>;

  constructor(conn: Connection, batching: BatcherOptions = GROUP_COMMIT) {
    this.model = ledgerModel(conn);
    this.claims = networkPostClaimModel(conn);
    // Straight to the driver: these writes are on the path of every publish. Each run is bounded
    // (GROUP_COMMIT's timeoutMs): a command that hangs fails its jobs' writes, which they retry.
    this.inserts = new Batcher((docs, limits) => insertEach(this.model.collection, docs, limits), batching);
    this.publishes = new Batcher((writes, limits) => this.publishAll(writes, limits), batching);
  }

  async get(key: string): Promise<LedgerEntry | null> {
    const d = await this.model.findById(key).lean<LedgerDoc>();
    return d ? toEntry(d) : null;
  }

  async begin(start: AttemptStart): Promise<{ created: boolean; entry: LedgerEntry }> {
    const doc: LedgerDoc = {
      _id: start.key,
      workspaceId: start.workspaceId,
      postId: start.postId,
      profileId: start.profileId,
      net: start.net,
      ...attemptFields(start, start.state === 'CALLING' ? 1 : 0, new Date()),
    };
    if ((await this.inserts.push(doc)) === 'inserted') return { created: true, entry: toEntry(doc) };
    const existing = await this.get(start.key);
    if (!existing) throw new Error(`ledger entry ${start.key} exists but cannot be read`);
    return { created: false, entry: existing };
  }

  async beginAgain(entry: LedgerEntry, start: AttemptStart): Promise<LedgerEntry | null> {
    const calls = start.state === 'CALLING' ? 1 : 0;
    const attempts = start.revision === entry.revision ? entry.attempts + calls : calls;
    const d = await this.model
      .findOneAndUpdate(
        { _id: entry.key, attemptId: entry.attemptId, state: 'NOT_PUBLISHED' },
        { $set: attemptFields(start, attempts, new Date()) },
        { new: true },
      )
      .lean<LedgerDoc>();
    return d ? toEntry(d) : null;
  }

  async published(key: string, networkPostId: string, publishedAt: Date, known?: LedgerEntry): Promise<LedgerEntry> {
    const set = {
      state: 'PUBLISHED' as const,
      networkPostId,
      publishedAt,
      error: null,
      final: true,
      retryAt: null,
      updatedAt: new Date(),
    };
    // The common case: the attempt this job recorded is still the latest, so the entry after the
    // write is known without reading it (a batched compare-and-set on the attempt).
    if (known && known.key === key && known.state !== 'PUBLISHED') {
      if (await this.publishes.push({ key, attemptId: known.attemptId, set })) {
        const { updatedAt: _u, ...fields } = set;
        return { ...known, ...fields };
      }
    }
    for (const from of ['CALLING', 'NOT_PUBLISHED'] as const) {
      const d = await this.model.findOneAndUpdate({ _id: key, state: from }, { $set: set }, { new: true }).lean<LedgerDoc>();
      if (d) return toEntry(d);
    }
    const now = await this.get(key);
    if (!now) throw new Error(`ledger entry ${key} vanished`);
    return now;
  }

  /**
   * Compare-and-sets of PUBLISHED on the attempts the jobs recorded, in one command. The command
   * answers only how many matched: when all did, each one did; otherwise none is trusted and each
   * job takes the path that reads the entry (writing PUBLISHED twice changes nothing).
   */
  private async publishAll(writes: PublishedWrite[], limits: RunLimits): Promise<boolean[]> {
    const res = await this.model.collection.bulkWrite(
      writes.map((w) => ({
        updateOne: { filter: { _id: w.key as never, attemptId: w.attemptId, state: { $ne: 'PUBLISHED' } }, update: { $set: w.set } },
      })),
      { ordered: false, ...limits },
    );
    const all = res.matchedCount === writes.length;
    return writes.map(() => all);
  }

  async notPublished(
    entry: LedgerEntry,
    outcome: { error: LedgerEntry['error']; final: boolean; retryAt: Date | null },
  ): Promise<LedgerEntry | null> {
    const d = await this.model
      .findOneAndUpdate(
        { _id: entry.key, attemptId: entry.attemptId, state: entry.state },
        { $set: { state: 'NOT_PUBLISHED', error: outcome.error, final: outcome.final, retryAt: outcome.retryAt, updatedAt: new Date() } },
        { new: true },
      )
      .lean<LedgerDoc>();
    return d ? toEntry(d) : null;
  }

  async unsettled(entry: LedgerEntry, error: LedgerEntry['error']): Promise<void> {
    await this.model.updateOne(
      { _id: entry.key, attemptId: entry.attemptId, state: 'CALLING' },
      { $set: { error, updatedAt: new Date() } },
    );
  }

  async callingNow(entry: LedgerEntry): Promise<LedgerEntry | null> {
    const now = new Date();
    const d = await this.model
      .findOneAndUpdate(
        { _id: entry.key, attemptId: entry.attemptId, state: 'CALLING' },
        { $set: { calledUntil: now, updatedAt: now } },
        { new: true },
      )
      .lean<LedgerDoc>();
    return d ? toEntry(d) : null;
  }

  async callingWithSameContent(entry: LedgerEntry): Promise<LedgerEntry[]> {
    if (!entry.fingerprint) return [];
    // Equalities only (what FerretDB pushes down), the fingerprint's indexed.
    const docs = await this.model
      .find({ fingerprint: entry.fingerprint, state: 'CALLING', net: entry.net, accountId: entry.accountId })
      .lean<LedgerDoc[]>();
    return docs.filter((d) => d._id !== entry.key).map(toEntry);
  }

  async claimNetworkPost(net: string, networkPostId: string, key: string): Promise<boolean> {
    // Published by a normal answer: its key owns it without a claim document.
    const owner = await this.model.findOne({ networkPostId }, { _id: 1, net: 1 }).lean<Pick<LedgerDoc, '_id' | 'net'>>();
    if (owner && owner.net === net && owner._id !== key) return false;
    try {
      await this.claims.create({ _id: `${net}:${networkPostId}`, key, at: new Date() });
      return true;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      return (await this.claims.findById(`${net}:${networkPostId}`).lean())?.key === key;
    }
  }
}
