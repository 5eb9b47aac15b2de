import { Schema, type Connection, type Model } from 'mongoose';
import type { NetworkKey } from '../domain/posts/networks';
import type { PlanEntry, PostRecord, StageEntry } from '../domain/posts/post.types';

/** A post as stored. Nested content is kept as given (Mixed); the rules validated it before. */
export interface PostDoc extends Omit<PostRecord, 'id' | 'profileNets'> {
  _id: string;
  /** profileNets as a list: profile ids are not safe as document keys on every backend. */
  profileNetList: { profileId: string; net: NetworkKey }[];
  /** ARCHIVE or not, as an equality key: the default list (no `stages`) filters on it. */
  archived: boolean;
  /** publishAt, or createdAt for IDEA posts: the list order (newest first, then _id). */
  sortAt: Date;
  /** Lower-cased caption texts, for the case-insensitive `search`. */
  searchText: string;
  /** Every mediaLibId used (medias, link previews, carousel cards), for CountMediaUsage. */
  mediaLibIds: string[];
  /**
   * The minute bucket the dispatcher (`W:<minute>`, WAITING) or the watchdog (`D:<minute>`,
   * DISPATCHED) finds the post in, or null (MinuteBuckets explains why buckets).
   */
  dispatchKey: string | null;
  /**
   * Set by writes that go out in one command with others (a batch answers only how many matched):
   * when the batch does not match in full, this tells each write whether it was the one stored.
   */
  writeId?: string | null;
}

const mixed = { type: Schema.Types.Mixed };

const postSchema = new Schema<PostDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    type: { type: String, required: true },
    stage: { type: String, required: true },
    archived: { type: Boolean, required: true },
    publishAt: { type: Date, default: null },
    sortAt: { type: Date, required: true },
    profileIds: [String],
    profileNetList: [mixed],
    captions: [mixed],
    medias: [mixed],
    links: [mixed],
    briefing: { ...mixed, default: null },
    labelIds: [String],
    networks: { ...mixed, default: {} },
    stageHistory: [mixed] as unknown as StageEntry[],
    archivedFrom: { type: String, default: null },
    revision: { type: Number, required: true },
    plan: [mixed] as unknown as PlanEntry[],
    dispatch: { ...mixed, default: null },
    dispatchKey: { type: String, default: null },
    writeId: { type: String },
    version: { type: Number, required: true },
    searchText: { type: String, default: '' },
    mediaLibIds: [String],
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'posts', minimize: false },
);
// Every query starts with the workspace (an equality FerretDB pushes down), so other workspaces'
// posts are never read. The list is kept in memory (PostListIndex) and reads a workspace's posts
// whole, so nothing sorts or filters posts on other fields in the database: one index on the
// workspace serves every query. Each further index is paid on every write of a post (on FerretDB
// with a GIN companion too), and publishing writes each post twice (claim, result).
postSchema.index({ workspaceId: 1 });
postSchema.index({ dispatchKey: 1 });

/** Indexes of earlier releases that no query uses any more; dropped at start-up. */
export const UNUSED_POST_INDEXES = ['workspaceId_1_archived_1_sortAt_-1__id_-1', 'workspaceId_1_sortAt_-1__id_-1', 'workspaceId_1_stage_1'];

export const postModel = (conn: Connection) =>
  (conn.models['Post'] as Model<PostDoc> | undefined) ?? conn.model<PostDoc>('Post', postSchema);
