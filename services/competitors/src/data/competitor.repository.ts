import type { Connection, Model } from 'mongoose';
import type { NetworkCode } from '@social/networks';
import { isDuplicateKeyError } from '@social/mongo';
import type { Competitor, CompetitorStore, ListFilter, NewCompetitor, Page } from '../domain/ports';
import { competitorModel, type CompetitorDoc } from './competitor.model';
import { newId } from './ids';
import { listConditions } from './list-filter';

const toCompetitor = (d: CompetitorDoc): Competitor => ({
  id: d._id,
  workspaceId: d.workspaceId,
  profileId: d.profileId,
  net: d.net as NetworkCode,
  networkAccountId: d.networkAccountId,
  name: d.name,
  username: d.username,
  picture: d.picture,
  statusLevel: d.statusLevel,
});

export class CompetitorRepository implements CompetitorStore {
  readonly model: Model<CompetitorDoc>;

  constructor(conn: Connection) {
    this.model = competitorModel(conn);
  }

  newId(): string {
    return newId();
  }

  /**
   * Null on a duplicate key: the profile is already a competitor of the workspace, or the slot is
   * taken (unique indexes); the caller tells the two apart by reading the profile's record.
   */
  async insert(workspaceId: string, c: NewCompetitor): Promise<Competitor | null> {
    const { id, ...fields } = c;
    try {
      const doc = await this.model.create({ _id: id, workspaceId, ...fields, statusLevel: 'ACTIVE', createdAt: new Date() });
      return toCompetitor(doc.toObject());
    } catch (err) {
      if (isDuplicateKeyError(err)) return null;
      throw err;
    }
  }

  async exists(id: string): Promise<boolean> {
    return (await this.model.exists({ _id: id })) !== null;
  }

  async findByProfile(workspaceId: string, profileId: string): Promise<Competitor | null> {
    const d = await this.model.findOne({ workspaceId, profileId }).lean<CompetitorDoc>();
    return d ? toCompetitor(d) : null;
  }

  async findById(workspaceId: string, id: string): Promise<Competitor | null> {
    const d = await this.model.findOne({ _id: id, workspaceId }).lean<CompetitorDoc>();
    return d ? toCompetitor(d) : null;
  }

  /** The plan slots the workspace's competitors hold now. */
  async usedSlots(workspaceId: string): Promise<Set<number>> {
    const docs = await this.model.find({ workspaceId }, { slot: 1 }).lean<Pick<CompetitorDoc, 'slot'>[]>();
    return new Set(docs.map((d) => d.slot));
  }

  async list(workspaceId: string, filter: ListFilter, page: Page): Promise<{ items: Competitor[]; total: number }> {
    const where = { workspaceId, ...listConditions<CompetitorDoc>(filter) };
    const [docs, total] = await Promise.all([
      this.model.find(where).sort({ _id: 1 }).skip(page.skip).limit(page.take).lean<CompetitorDoc[]>(),
      this.model.countDocuments(where),
    ]);
    return { items: docs.map(toCompetitor), total };
  }

  /** True when this call deleted it (a delete's row count is exact, unlike a guarded update's). */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    const res = await this.model.deleteOne({ _id: id, workspaceId });
    return res.deletedCount === 1;
  }
}
