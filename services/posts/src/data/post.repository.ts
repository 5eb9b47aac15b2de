import { Batcher, GROUP_COMMIT, type BatcherOptions, type RunLimits } from '@social/mongo';
import { Schema, type Connection, type Model } from 'mongoose';
import type { NetworkKey } from '../domain/posts/networks';
import type { PostRecord } from '../domain/posts/post.types';
import type { PostStore } from '../domain/posts/ports';
import type { DueRevision, PublishingPosts } from '../domain/publishing/ports';
import { GroupCommit } from './group-commit';
import { newId } from './ids';
import { MinuteBuckets } from './minute-buckets';
import { postModel, UNUSED_POST_INDEXES, type PostDoc } from './post.model';

interface GenerationDoc {
  _id: string;
  generation: string;
}
const generationSchema = new Schema<GenerationDoc>(
  { _id: { type: String, required: true }, generation: { type: String, required: true } },
  { versionKey: false, collection: 'post_list_generations' },
);
const generationModel = (conn: Connection) =>
  (conn.models['PostListGeneration'] as Model<GenerationDoc> | undefined) ??
  conn.model<GenerationDoc>('PostListGeneration', generationSchema);

/** What the list filters and sorts on, per post, with the post itself. */
export interface ListEntry {
  id: string;
  post: PostRecord;
  sortAt: number;
  publishAt: number | null;
  stage: string;
  type: string;
  profileIds: string[];
  labelIds: string[];
  searchText: string;
}

export interface PostRepositoryOptions {
  /** Where the first scan for due posts of an empty database starts. */
  firstLookBackMs: number;
  /** Posts kept from this process's own publishing writes (see `modify`). */
  recentWrites?: number;
  /** Publishing writes that arrive together go out in one command (claims, results, checks); GROUP_COMMIT unless set. */
  batching?: BatcherOptions;
}

type Change = (post: PostRecord) => PostRecord | null;
interface Modification {
  workspaceId: string;
  id: string;
  change: Change;
}
interface Claim {
  due: DueRevision;
  checkAt: Date;
}
/** A write of a batch that may not have been stored: the caller goes on one by one. */
const NOT_STORED = Symbol('not stored');

function toRecord(d: PostDoc): PostRecord {
  const { _id, profileNetList, archived: _a, sortAt: _s, searchText: _t, mediaLibIds: _m, dispatchKey: _k, writeId: _w, ...rest } = d;
  return {
    ...rest,
    id: _id,
    profileNets: Object.fromEntries((profileNetList ?? []).map((p) => [p.profileId, p.net])) as Record<string, NetworkKey>,
    publishAt: d.publishAt ?? null,
    briefing: d.briefing ?? null,
    networks: d.networks ?? {},
    archivedFrom: d.archivedFrom ?? null,
    dispatch: d.dispatch ?? null,
  };
}

export class PostRepository implements PostStore, PublishingPosts {
  private readonly model: Model<PostDoc>;
  private readonly generations: Model<GenerationDoc>;
  /** Writes that finish together (publish results, bulk scheduling) share one generation write. */
  private readonly generationBumps = new GroupCommit((workspaceId) =>
    this.generations.updateOne({ _id: workspaceId }, { $set: { generation: newId() } }, { upsert: true }).then(() => undefined),
  );
  private readonly waiting: MinuteBuckets<PostDoc>;
  private readonly dispatched: MinuteBuckets<PostDoc>;
  /**
   * The last version this process wrote of posts being published (claimed, results applied): a
   * result usually finds its post here and is applied with one compare-and-set, no read first.
   * A stale entry only costs the compare-and-set that fails and the read that follows.
   */
  private readonly recent = new Map<string, PostRecord>();
  /** The posts the last scan listed as waiting, as read: a claim of one is a compare-and-set on it. */
  private listed = new Map<string, PostRecord>();
  private readonly modifications: Batcher<Modification, PostRecord | null | typeof NOT_STORED>;
  private readonly batching: BatcherOptions;

  constructor(
    conn: Connection,
    private readonly opts: PostRepositoryOptions = { firstLookBackMs: 6 * 3600_000 },
  ) {
    this.model = postModel(conn);
    this.generations = generationModel(conn);
    this.waiting = new MinuteBuckets(this.model, conn, 'W', opts.firstLookBackMs);
    this.dispatched = new MinuteBuckets(this.model, conn, 'D', opts.firstLookBackMs);
    this.batching = opts.batching ?? GROUP_COMMIT;
    // Each run is bounded (GROUP_COMMIT's timeoutMs): a command that hangs fails its writes, which
    // publishing takes as unknown outcomes and retries (they are compare-and-sets).
    this.modifications = new Batcher((items, limits) => this.modifyAll(items, limits), this.batching);
  }

  private toDoc(r: PostRecord, now = new Date()): PostDoc {
    const { id, profileNets, ...rest } = r;
    const mediaLibIds = new Set<string>();
    for (const g of r.medias) for (const f of g.mediaFiles) mediaLibIds.add(f.mediaLibId);
    for (const l of r.links) if (l.mediaLibId) mediaLibIds.add(l.mediaLibId);
    const cards = r.networks.generalNet?.['carousels'];
    if (Array.isArray(cards))
      for (const c of cards as { mediaLibId?: unknown }[]) if (typeof c.mediaLibId === 'string') mediaLibIds.add(c.mediaLibId);
    const d = r.dispatch;
    return {
      ...rest,
      _id: id,
      profileNetList: Object.entries(profileNets).map(([profileId, net]) => ({ profileId, net })),
      archived: r.stage === 'ARCHIVE',
      sortAt: r.publishAt ?? r.createdAt,
      searchText: r.captions.map((c) => c.plainText.toLowerCase()).join('\n'),
      mediaLibIds: [...mediaLibIds],
      dispatchKey: !d ? null : d.state === 'WAITING' ? this.waiting.keyFor(d.dueAt, now) : this.dispatched.keyFor(d.checkAt ?? now, now),
    };
  }

  /** Drops the indexes earlier releases made that no query uses (once; later starts find none). */
  async dropUnusedIndexes(): Promise<void> {
    const existing = new Set((await this.model.collection.indexes().catch(() => [])).map((i) => i.name));
    for (const name of UNUSED_POST_INDEXES) if (existing.has(name)) await this.model.collection.dropIndex(name);
  }

  newId(): string {
    return newId();
  }

  async insert(post: PostRecord): Promise<void> {
    await this.model.create(this.toDoc(post));
    await this.bumpListGeneration(post.workspaceId);
  }

  async get(workspaceId: string, id: string): Promise<PostRecord | null> {
    const doc = await this.model.findOne({ workspaceId, _id: id }).lean<PostDoc>();
    return doc ? toRecord(doc) : null;
  }

  /**
   * Writes the whole post if nobody changed it since it was read at `expectedVersion`: this
   * compare-and-set keeps concurrent changes apart (the dispatcher's claim among them).
   */
  async replace(post: PostRecord, expectedVersion: number): Promise<boolean> {
    const res = await this.model.replaceOne({ workspaceId: post.workspaceId, _id: post.id, version: expectedVersion }, this.toDoc(post));
    this.forget(post.id);
    if (res.matchedCount !== 1) return false;
    await this.bumpListGeneration(post.workspaceId);
    return true;
  }

  async delete(workspaceId: string, id: string, expectedVersion: number): Promise<boolean> {
    const res = await this.model.deleteOne({ workspaceId, _id: id, version: expectedVersion });
    this.forget(id);
    if (res.deletedCount !== 1) return false;
    await this.bumpListGeneration(workspaceId);
    return true;
  }

  /**
   * Publishing's writes (results, watchdog checks, hand-backs): those that arrive together are
   * compare-and-sets in one command; one that loses (another write came first) is applied again,
   * alone, to a fresh read.
   */
  async modify(workspaceId: string, id: string, change: Change): Promise<PostRecord | null> {
    const batched = await this.modifications.push({ workspaceId, id, change });
    return batched === NOT_STORED ? this.modifyOne(workspaceId, id, change, false) : batched;
  }

  private async modifyAll(items: Modification[], limits: RunLimits): Promise<(PostRecord | null | typeof NOT_STORED | Error)[]> {
    const out: (PostRecord | null | typeof NOT_STORED | Error)[] = items.map(() => NOT_STORED);
    const writes: { i: number; post: PostRecord; next: PostRecord }[] = [];
    await Promise.all(
      items.map(async (m, i) => {
        try {
          const post = this.recentOf(m.workspaceId, m.id) ?? (await this.get(m.workspaceId, m.id));
          if (!post) return void (out[i] = null);
          const next = m.change(post);
          if (!next) return void (out[i] = post);
          writes.push({ i, post, next });
        } catch (err) {
          out[i] = err as Error;
        }
      }),
    );
    const stored = await this.replaceAll(
      writes.map((w) => ({ expected: w.post, next: w.next })),
      limits,
    );
    writes.forEach((w, k) => {
      if (stored[k]) out[w.i] = w.next;
    });
    return out;
  }

  /**
   * Compare-and-set replaces in one command. The command answers only how many matched: when all
   * did, every write was stored; else each post is read and its writeId says whether this write is
   * the one stored. (Only when the post was also written twice more in between does a stored write
   * read as not stored; applying its change again then finds nothing to change.)
   */
  private async replaceAll(writes: { expected: PostRecord; next: PostRecord }[], limits: RunLimits = {}): Promise<boolean[]> {
    if (writes.length === 0) return [];
    const ids = writes.map(() => newId());
    // Straight to the driver: these are the writes of every publish (claim, result), and mongoose
    // made a full document of each replacement to cast it (a quarter of the posts process's CPU in
    // a burst). toDoc already gives the stored types (Dates, no undefined kept).
    const res = await this.model.collection.bulkWrite(
      writes.map((w, k) => ({
        replaceOne: {
          filter: { workspaceId: w.expected.workspaceId, _id: w.expected.id as never, version: w.expected.version },
          replacement: { ...this.toDoc(w.next), writeId: ids[k] } as never,
        },
      })),
      { ordered: false, ignoreUndefined: true, ...limits },
    );
    const stored =
      res.matchedCount === writes.length
        ? writes.map(() => true)
        : await Promise.all(
            writes.map(
              async (w, k) =>
                (await this.model.findOne({ workspaceId: w.expected.workspaceId, _id: w.expected.id }, { writeId: 1 }).lean<PostDoc>())
                  ?.writeId === ids[k],
            ),
          );
    writes.forEach((w, k) => (stored[k] ? this.remember(w.next) : this.forget(w.next.id)));
    await Promise.all(
      [...new Set(writes.filter((_, k) => stored[k]).map((w) => w.next.workspaceId))].map((ws) => this.bumpListGeneration(ws)),
    );
    return stored;
  }

  private recentOf(workspaceId: string, id: string): PostRecord | undefined {
    const post = this.recent.get(id);
    return post?.workspaceId === workspaceId ? post : undefined;
  }

  private async modifyOne(workspaceId: string, id: string, change: Change, useRecent = true): Promise<PostRecord | null> {
    let post = useRecent ? this.recentOf(workspaceId, id) : undefined;
    for (;;) {
      post ??= (await this.get(workspaceId, id)) ?? undefined;
      if (!post) return null;
      const next = change(post);
      if (!next) return post;
      const res = await this.model.replaceOne({ workspaceId, _id: id, version: post.version }, this.toDoc(next));
      if (res.matchedCount === 1) {
        this.remember(next);
        await this.bumpListGeneration(workspaceId);
        return next;
      }
      post = undefined; // another write came first: read it and apply the change to what it left
    }
  }

  // Publishing: the dispatcher's and the watchdog's queries (domain/publishing/ports.ts).

  async waitingUntil(horizon: Date, now: Date): Promise<DueRevision[]> {
    // Whole posts (FerretDB reads them whole anyway): a claim is then a compare-and-set on the
    // version read here, and the claimed post is known without reading it again.
    const docs = (await this.waiting.scan(horizon, now)).filter(
      (d) => d.dispatch?.state === 'WAITING' && new Date(d.dispatch.dueAt).getTime() <= horizon.getTime(),
    );
    this.listed = new Map(docs.map((d) => [d._id, toRecord(d)]));
    return docs.map((d) => ({ workspaceId: d.workspaceId, postId: d._id, revision: d.revision, dueAt: new Date(d.dispatch!.dueAt) }));
  }

  /**
   * Claims of posts the last scan listed, together in one command: each a compare-and-set on the
   * version listed (the claimed post is then that one, DISPATCHED). A post changed since it was
   * listed, or not listed, is claimed alone as claimForDispatch does (conditional on its revision).
   */
  async claimManyForDispatch(due: DueRevision[], checkAt: Date): Promise<(PostRecord | null)[]> {
    const out: (PostRecord | null | typeof NOT_STORED)[] = [];
    const size = this.batching.maxBatch;
    for (let i = 0; i < due.length; i += size) out.push(...(await this.claimAll(due.slice(i, i + size).map((d) => ({ due: d, checkAt })))));
    return Promise.all(out.map((r, i) => (r === NOT_STORED ? this.claimForDispatch(due[i]!, checkAt) : r)));
  }

  private async claimAll(claims: Claim[]): Promise<(PostRecord | null | typeof NOT_STORED)[]> {
    const writes: { i: number; expected: PostRecord; next: PostRecord }[] = [];
    claims.forEach(({ due, checkAt }, i) => {
      const post = this.listed.get(due.postId);
      if (post?.workspaceId !== due.workspaceId || post.revision !== due.revision || post.dispatch?.state !== 'WAITING') return;
      if (post.stage !== 'SCHEDULED') return;
      writes.push({
        i,
        expected: post,
        next: { ...post, dispatch: { ...post.dispatch, state: 'DISPATCHED', checkAt }, version: post.version + 1 },
      });
    });
    // Every change of a post is a new version: at the version listed it is still WAITING.
    const stored = await this.replaceAll(writes);
    const out: (PostRecord | null | typeof NOT_STORED)[] = claims.map(() => NOT_STORED);
    writes.forEach((w, k) => {
      this.listed.delete(w.expected.id);
      if (stored[k]) out[w.i] = w.next;
    });
    return out;
  }

  async claimForDispatch(due: DueRevision, checkAt: Date): Promise<PostRecord | null> {
    const doc = await this.model
      .findOneAndUpdate(
        { _id: due.postId, workspaceId: due.workspaceId, revision: due.revision, stage: 'SCHEDULED', 'dispatch.state': 'WAITING' },
        {
          // Not a change the list shows (version and dispatch are not in a Post), so no new list generation.
          $set: { 'dispatch.state': 'DISPATCHED', 'dispatch.checkAt': checkAt, dispatchKey: this.dispatched.keyFor(checkAt, new Date()) },
          $inc: { version: 1 },
        },
        { new: true },
      )
      .lean<PostDoc>();
    if (!doc) return null;
    const post = toRecord(doc);
    this.remember(post);
    return post;
  }

  async dueForCheck(now: Date): Promise<PostRecord[]> {
    const docs = await this.dispatched.scan(now, now);
    return docs
      .filter((d) => d.dispatch?.state === 'DISPATCHED' && (!d.dispatch.checkAt || new Date(d.dispatch.checkAt).getTime() <= now.getTime()))
      .map(toRecord);
  }

  private remember(post: PostRecord): void {
    this.recent.delete(post.id);
    this.recent.set(post.id, post);
    const max = this.opts.recentWrites ?? 10_000;
    for (const key of this.recent.keys()) {
      if (this.recent.size <= max) break;
      this.recent.delete(key);
    }
  }

  private forget(id: string): void {
    this.recent.delete(id);
  }

  /**
   * Every write to a workspace's posts ends with a fresh generation, after the post itself is
   * written (see PostListIndex for why that order makes the in-memory list safe). Concurrent
   * writes of a workspace share a generation write that starts after all of them finished.
   */
  bumpListGeneration(workspaceId: string): Promise<void> {
    return this.generationBumps.run(workspaceId);
  }

  async listGeneration(workspaceId: string): Promise<string | null> {
    const doc = await this.generations.findOne({ _id: workspaceId }).lean<GenerationDoc>();
    return doc?.generation ?? null;
  }

  /** Every post of the workspace with its list fields (one equality query). */
  async listEntries(workspaceId: string): Promise<ListEntry[]> {
    const docs = await this.model.find({ workspaceId }).lean<PostDoc[]>();
    return docs.map((d) => ({
      id: d._id,
      post: toRecord(d),
      sortAt: new Date(d.sortAt).getTime(),
      publishAt: d.publishAt ? new Date(d.publishAt).getTime() : null,
      stage: d.stage,
      type: d.type,
      profileIds: d.profileIds ?? [],
      labelIds: d.labelIds ?? [],
      searchText: d.searchText ?? '',
    }));
  }

  async countMediaUsage(workspaceId: string, mediaId: string): Promise<{ total: number; scheduled: number }> {
    const docs = await this.model.find({ workspaceId, mediaLibIds: mediaId }, { stage: 1 }).lean<Pick<PostDoc, 'stage'>[]>();
    return { total: docs.length, scheduled: docs.filter((d) => d.stage === 'SCHEDULED').length };
  }

  async findWithAnyLabel(workspaceId: string, labelIds: string[]): Promise<PostRecord[]> {
    if (labelIds.length === 0) return [];
    const docs = await this.model.find({ workspaceId, labelIds: { $in: labelIds } }).lean<PostDoc[]>();
    return docs.map(toRecord);
  }
}
