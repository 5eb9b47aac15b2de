import { Schema, type Connection, type Model } from 'mongoose';
import type { NetworkKey } from '../domain/posts/networks';
import type { PostRecord, PostType, Stage } from '../domain/posts/post.types';
import { GroupCommit } from './group-commit';
import { newId } from './ids';
import { postModel, type PostDoc } from './post.model';
import type { ListEntry } from './post-list.index';

interface GenerationDoc {
  _id: string;
  generation: string;
}
const generationSchema = new Schema<GenerationDoc>(
  { _id: { type: String, required: true }, generation: { type: String, required: true } },
  { versionKey: false, collection: 'post_list_generations' },
);
const generationModel = (conn: Connection) =>
  (conn.models['PostListGeneration'] as Model<GenerationDoc> | undefined) ?? conn.model<GenerationDoc>('PostListGeneration', generationSchema);

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
  private readonly generations: Model<GenerationDoc>;
  /** Writes that finish together (publish results, bulk scheduling) share one generation write. */
  private readonly generationBumps = new GroupCommit((workspaceId) =>
    this.generations.updateOne({ _id: workspaceId }, { $set: { generation: newId() } }, { upsert: true }).then(() => undefined),
  );

  constructor(conn: Connection) {
    this.model = postModel(conn);
    this.generations = generationModel(conn);
  }

  async insert(post: PostRecord): Promise<void> {
    await this.model.create(toDoc(post));
    await this.bumpListGeneration(post.workspaceId);
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
    if (res.matchedCount !== 1) return false;
    await this.bumpListGeneration(post.workspaceId);
    return true;
  }

  async delete(workspaceId: string, id: string, expectedVersion: number): Promise<boolean> {
    const res = await this.model.deleteOne({ workspaceId, _id: id, version: expectedVersion });
    if (res.deletedCount !== 1) return false;
    await this.bumpListGeneration(workspaceId);
    return true;
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
