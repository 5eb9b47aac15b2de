import { randomUUID } from 'node:crypto';
import { createLogger } from '@social/logger';
import { insertEach, type Connection } from '@social/mongo';
import { ledgerModel, type LedgerDoc } from './ledger.model';

const log = createLogger('publisher:migration');

/** The collection of the exactly-once ledger of releases before `publish_ledger`. */
export const LEGACY_ATTEMPTS_COLLECTION = 'publish_attempts';

/**
 * One publish of one post on one profile at one revision, as releases before the ledger kept it.
 * `_id` was `${postId}:${profileId}:${revision}`, and that was the idempotency key sent to the
 * network with every call of the attempt (a STARTED attempt was called again, same key, after a
 * failure that might pass, or after a crash).
 */
export interface LegacyAttempt {
  _id: string;
  workspaceId: string | null;
  postId: string;
  profileId: string;
  revision: number;
  net: string;
  state: 'STARTED' | 'PUBLISHED' | 'FAILED' | 'CANCELLED';
  networkPostId: string | null;
  publishedAt: Date | null;
  error: { code: string; message: string } | null;
  attempts: number;
  startedAt: Date;
  updatedAt: Date;
}

/** The entry fields the migration writes (everything but the key and the bookkeeping). */
type Entry = Omit<LedgerDoc, '_id'>;

/**
 * The ledger entry of a (post, profile) after merging one attempt of the earlier release into it
 * (`entry` null: there is none yet). Null when the attempt changes nothing but its mark.
 *
 * What the network holds wins: an attempt PUBLISHED (of any revision) makes the entry PUBLISHED,
 * whatever else was tried. An attempt STARTED may have created the post: unless the entry is
 * PUBLISHED it becomes CALLING, asking the network by every such key the old release sent and
 * recording no fingerprint (its content is not known, so no content match may prove it absent).
 * FAILED and CANCELLED created nothing: NOT_PUBLISHED, final, only where nothing stronger is known,
 * the latest revision's reason winning. The entry's revision is the latest tried, so copies of
 * older jobs are stale. Merging commutes: attempts may come in any order, in any chunks, from any
 * number of replicas.
 */
export function mergeLegacyAttempt(entry: Entry | null, a: LegacyAttempt, now: Date): Partial<Entry> | null {
  const revision = Math.max(entry?.revision ?? a.revision, a.revision);
  const calledUntil = new Date(Math.max(a.updatedAt.getTime(), now.getTime()));
  const published: Partial<Entry> = {
    state: 'PUBLISHED',
    attempts: a.attempts,
    calledAt: null,
    calledUntil: null,
    idempotencyKeys: null,
    networkPostId: a.networkPostId,
    publishedAt: a.publishedAt ?? a.updatedAt,
    error: null,
    final: true,
    retryAt: null,
  };
  const calling: Partial<Entry> = {
    state: 'CALLING',
    attempts: a.attempts,
    accountId: null,
    calledAt: a.startedAt,
    // Old workers are stopped before the upgrade runs, so every call they sent was sent by now.
    calledUntil,
    fingerprint: null,
    idempotencyKeys: [a._id],
    networkPostId: null,
    publishedAt: null,
    error: null,
    final: false,
    retryAt: null,
  };
  const failed: Partial<Entry> = {
    state: 'NOT_PUBLISHED',
    attempts: a.attempts,
    accountId: null,
    calledAt: null,
    calledUntil: null,
    fingerprint: null,
    idempotencyKeys: null,
    networkPostId: null,
    publishedAt: null,
    error: a.error ?? { code: 'PUBLISH_FAILED', message: 'The publish failed (before an upgrade).' },
    final: true,
    retryAt: null,
  };
  if (!entry) {
    const fields = a.state === 'PUBLISHED' ? published : a.state === 'STARTED' ? calling : failed;
    return {
      workspaceId: a.workspaceId,
      postId: a.postId,
      profileId: a.profileId,
      net: a.net,
      revision,
      accountId: null,
      calledAt: a.startedAt,
      calledUntil: null,
      fingerprint: null,
      idempotencyKeys: null,
      ...fields,
    } as Entry;
  }
  switch (entry.state) {
    case 'PUBLISHED':
      if (a.state === 'PUBLISHED' && a.networkPostId !== entry.networkPostId) {
        log.warn('an earlier release published one post twice on one profile; the ledger keeps one of them', {
          postId: a.postId,
          profileId: a.profileId,
          kept: entry.networkPostId,
          other: a.networkPostId,
        });
      }
      return revision === entry.revision ? null : { revision };
    case 'CALLING':
      if (a.state === 'PUBLISHED') return { ...published, revision };
      if (a.state === 'STARTED') {
        // Two attempts in flight: either may have created the post; both keys are asked about,
        // and as the old one's content is unknown, no content match can show the post absent.
        const keys = entry.idempotencyKeys?.length ? entry.idempotencyKeys : [`${a.postId}:${a.profileId}`];
        const lastCall = entry.calledUntil ?? entry.calledAt;
        return {
          revision,
          attempts: entry.revision >= a.revision ? entry.attempts : a.attempts,
          idempotencyKeys: [...new Set([...keys, a._id])].sort(),
          fingerprint: null,
          calledAt: new Date(Math.min(entry.calledAt?.getTime() ?? Infinity, a.startedAt.getTime())),
          calledUntil: new Date(Math.max(lastCall?.getTime() ?? 0, calledUntil.getTime())),
        };
      }
      return revision === entry.revision ? null : { revision };
    case 'NOT_PUBLISHED':
      if (a.state === 'PUBLISHED') return { ...published, revision };
      if (a.state === 'STARTED') return { ...calling, revision };
      return a.revision > entry.revision ? { ...failed, revision } : null;
  }
}

/** A merge write: the fields, a fresh attempt id (the compare-and-set's token) and the mark. */
function mergeWrite(entry: LedgerDoc | null, merged: Partial<Entry>, ids: string[], now: Date) {
  return { ...merged, attemptId: randomUUID(), updatedAt: now, migratedFrom: [...(entry?.migratedFrom ?? []), ...ids] };
}

const CHUNK = 500;

/**
 * Upgrades from releases that kept the exactly-once ledger in `publish_attempts` (one document per
 * (post, profile, revision)): every attempt is merged into the `publish_ledger` entry of its (post,
 * profile) (mergeLegacyAttempt), then the collection is dropped. Runs at start-up, before any job
 * is consumed; without it a job or a reconcile for a post the old release published, or may have
 * published, would find no entry and publish it again.
 *
 * Safe to run by several replicas at once, and after a crash half-way: each entry notes the attempts
 * merged into it (`migratedFrom`) and every write is a compare-and-set on the entry's attempt id,
 * so each attempt counts once. A no-op once the collection is gone. It relies on the old release's
 * workers being stopped (the old ledger quiet): see the README, "Upgrading".
 */
export async function migrateLegacyAttempts(conn: Connection, now: () => Date = () => new Date()): Promise<number> {
  const db = conn.db!;
  if ((await db.listCollections({ name: LEGACY_ATTEMPTS_COLLECTION }).toArray()).length === 0) return 0;
  const legacy = db.collection<LegacyAttempt>(LEGACY_ATTEMPTS_COLLECTION);
  const ledger = ledgerModel(conn).collection;
  log.info('merging the earlier release ledger (publish_attempts) into publish_ledger before taking jobs');
  let merged = 0;
  try {
    const cursor = legacy.find({}, { batchSize: CHUNK });
    let chunk: LegacyAttempt[] = [];
    for await (const a of cursor) {
      chunk.push(a);
      if (chunk.length === CHUNK) {
        merged += await mergeChunk(ledger, chunk, now());
        chunk = [];
      }
    }
    if (chunk.length > 0) merged += await mergeChunk(ledger, chunk, now());
  } catch (err) {
    // Another replica finished (and dropped the collection) while this one was reading it.
    if ((await db.listCollections({ name: LEGACY_ATTEMPTS_COLLECTION }).toArray()).length === 0) return merged;
    throw err;
  }
  await legacy.drop().catch(async (err) => {
    if ((await db.listCollections({ name: LEGACY_ATTEMPTS_COLLECTION }).toArray()).length > 0) throw err;
  });
  log.info('the earlier release ledger (publish_attempts) was merged into publish_ledger and dropped', { merged });
  return merged;
}

type LedgerCollection = ReturnType<typeof ledgerModel>['collection'];

/**
 * One chunk: the entries of keys that have none yet in one unordered insert (the common case, one
 * command); keys that have one, one by one with a compare-and-set.
 */
async function mergeChunk(ledger: LedgerCollection, chunk: LegacyAttempt[], now: Date): Promise<number> {
  const byKey = new Map<string, LegacyAttempt[]>();
  for (const a of chunk) {
    const key = `${a.postId}:${a.profileId}`;
    byKey.set(key, [...(byKey.get(key) ?? []), a]);
  }
  const fresh: LedgerDoc[] = [];
  for (const [key, attempts] of byKey) {
    let entry: Entry | null = null;
    for (const a of attempts) {
      const m = mergeLegacyAttempt(entry, a, now);
      if (m) entry = { ...(entry ?? {}), ...m } as Entry;
    }
    const ids = attempts.map((a) => a._id);
    fresh.push({ _id: key, ...entry!, ...mergeWrite(null, {}, ids, now) });
  }
  const outcomes = await insertEach(ledger, fresh);
  let merged = 0;
  for (const [i, outcome] of outcomes.entries()) {
    const doc = fresh[i]!;
    if (outcome instanceof Error) throw outcome;
    if (outcome === 'inserted') merged += doc.migratedFrom!.length;
    else merged += await mergeIntoExisting(ledger, doc._id, byKey.get(doc._id)!, now);
  }
  return merged;
}

/** Merges attempts into an existing entry: those not merged yet, with a compare-and-set, again on a change. */
async function mergeIntoExisting(ledger: LedgerCollection, key: string, attempts: LegacyAttempt[], now: Date): Promise<number> {
  for (;;) {
    const current = (await ledger.findOne({ _id: key as never })) as LedgerDoc | null;
    if (!current) throw new Error(`ledger entry ${key} exists but cannot be read`);
    const done = new Set(current.migratedFrom ?? []);
    const todo = attempts.filter((a) => !done.has(a._id));
    if (todo.length === 0) return 0;
    let entry: Entry = current;
    let fields: Partial<Entry> = {};
    for (const a of todo) {
      const m = mergeLegacyAttempt(entry, a, now);
      if (m) {
        entry = { ...entry, ...m };
        fields = { ...fields, ...m };
      }
    }
    const ids = todo.map((a) => a._id);
    const res = await ledger.updateOne(
      { _id: key as never, attemptId: current.attemptId, state: current.state },
      { $set: mergeWrite(current, fields, ids, now) },
    );
    if (res.matchedCount === 1) return todo.length;
  }
}
