import type { Connection, FilterQuery, Model } from 'mongoose';
import type { NetworkKey } from '../domain/posts/networks';
import type { PostRecord, PostType, Stage } from '../domain/posts/post.types';
import { postModel, type PostDoc } from './post.model';

export interface PostFilter {
  since?: Date;
  /** Exclusive. */
  until?: Date;
  stages?: Stage[];
  types?: PostType[];
  profileIds?: string[];
  labelIds?: string[];
  search?: string;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function toRecord(d: PostDoc): PostRecord {
  const { _id, profileNetList, archived: _a, sortAt: _s, searchText: _t, mediaLibIds: _m, ...rest } = d;
  return {
    ...rest,
    id: _id,
    profileNets: Object.fromEntries((profileNetList ?? []).map((p) => [p.profileId, p.net])) as Record<string, NetworkKey>,
    publishAt: d.publishAt ?? null,
    briefing: d.briefing ?? null,
    networks: d.networks ?? {},
    archivedFrom: d.archivedFrom ?? null,
  };
}

function toDoc(r: PostRecord): PostDoc {
  const { id, profileNets, ...rest } = r;
  const mediaLibIds = new Set<string>();
  for (const g of r.medias) for (const f of g.mediaFiles) mediaLibIds.add(f.mediaLibId);
  for (const l of r.links) if (l.mediaLibId) mediaLibIds.add(l.mediaLibId);
  const cards = r.networks.generalNet?.['carousels'];
  if (Array.isArray(cards)) for (const c of cards as { mediaLibId?: unknown }[]) if (typeof c.mediaLibId === 'string') mediaLibIds.add(c.mediaLibId);
  return {
    ...rest,
    _id: id,
    profileNetList: Object.entries(profileNets).map(([profileId, net]) => ({ profileId, net })),
    archived: r.stage === 'ARCHIVE',
    sortAt: r.publishAt ?? r.createdAt,
    searchText: r.captions.map((c) => c.plainText.toLowerCase()).join('\n'),
    mediaLibIds: [...mediaLibIds],
  };
}

export class PostRepository {
  private readonly model: Model<PostDoc>;

  constructor(conn: Connection) {
    this.model = postModel(conn);
  }

  async insert(post: PostRecord): Promise<void> {
    await this.model.create(toDoc(post));
  }

  async get(workspaceId: string, id: string): Promise<PostRecord | null> {
    const doc = await this.model.findOne({ workspaceId, _id: id }).lean<PostDoc>();
    return doc ? toRecord(doc) : null;
  }

  /**
   * Writes the whole post if nobody changed it since it was read at `expectedVersion` (there are
   * no transactions: this compare-and-set is what keeps concurrent stage changes apart).
   */
  async replace(post: PostRecord, expectedVersion: number): Promise<boolean> {
    const res = await this.model.replaceOne({ workspaceId: post.workspaceId, _id: post.id, version: expectedVersion }, toDoc(post));
    return res.matchedCount === 1;
  }

  async delete(workspaceId: string, id: string, expectedVersion: number): Promise<boolean> {
    const res = await this.model.deleteOne({ workspaceId, _id: id, version: expectedVersion });
    return res.deletedCount === 1;
  }

  /** Newest first by publishAt (createdAt for posts without one), then by id: a stable order for paging. */
  async list(workspaceId: string, f: PostFilter, page: { skip: number; take: number }): Promise<{ items: PostRecord[]; total: number }> {
    const q: FilterQuery<PostDoc> = { workspaceId };
    if (!f.stages) q.archived = false;
    else if (f.stages.length === 1) q.stage = f.stages[0];
    else q.stage = { $in: f.stages };
    if (f.types) q.type = f.types.length === 1 ? f.types[0] : { $in: f.types };
    if (f.since || f.until) q.publishAt = { ...(f.since ? { $gte: f.since } : {}), ...(f.until ? { $lt: f.until } : {}) };
    if (f.profileIds) q.profileIds = { $in: f.profileIds };
    if (f.labelIds) q.labelIds = { $in: f.labelIds };
    if (f.search) q.searchText = { $regex: escapeRegex(f.search.toLowerCase()) };
    const [docs, total] = await Promise.all([
      this.model.find(q).sort({ sortAt: -1, _id: -1 }).skip(page.skip).limit(page.take).lean<PostDoc[]>(),
      this.model.countDocuments(q),
    ]);
    return { items: docs.map(toRecord), total };
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
