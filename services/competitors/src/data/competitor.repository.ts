import type { Connection, Model } from 'mongoose';
import type { NetworkCode } from '@social/networks';
import { competitorModel, type CompetitorDoc, type CompetitorStatusLevel } from './competitor.model';
import { listConditions, type ListFilter, type Page } from './list-filter';
import type { PendingEvent } from './outbox.fields';

export interface Competitor {
  id: string;
  workspaceId: string;
  profileId: string;
  net: NetworkCode;
  networkAccountId: string;
  name: string;
  username: string;
  picture: string;
  statusLevel: CompetitorStatusLevel;
}

export interface NewCompetitor {
  id: string;
  profileId: string;
  slot: number;
  net: NetworkCode;
  networkAccountId: string;
  name: string;
  username: string;
  picture: string;
}

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

const removedKey = (id: string) => `removed:${id}`;

export class CompetitorRepository {
  readonly model: Model<CompetitorDoc>;

  constructor(conn: Connection) {
    this.model = competitorModel(conn);
  }

  /**
   * Throws a duplicate-key error when the profile is already a competitor of the workspace or the
   * slot is taken; the caller tells the two apart by reading the profile's record.
   */
  async insert(workspaceId: string, c: NewCompetitor, event: PendingEvent): Promise<Competitor> {
    const { id, slot, ...fields } = c;
    const doc = await this.model.create({
      _id: id,
      workspaceId,
      ...fields,
      profileKey: c.profileId,
      slotKey: String(slot),
      statusLevel: 'ACTIVE',
      removed: false,
      createdAt: new Date(),
      outboxPending: true,
      outbox: event,
    });
    return toCompetitor(doc.toObject());
  }

  async findByProfile(workspaceId: string, profileId: string): Promise<Competitor | null> {
    const d = await this.model.findOne({ workspaceId, profileKey: profileId }).lean<CompetitorDoc>();
    return d ? toCompetitor(d) : null;
  }

  async findById(workspaceId: string, id: string): Promise<Competitor | null> {
    const d = await this.model.findOne({ _id: id, workspaceId, removed: false }).lean<CompetitorDoc>();
    return d ? toCompetitor(d) : null;
  }

  /** The plan slots the workspace's competitors hold now. */
  async usedSlots(workspaceId: string): Promise<Set<string>> {
    const docs = await this.model.find({ workspaceId, removed: false }, { slotKey: 1 }).lean<Pick<CompetitorDoc, 'slotKey'>[]>();
    return new Set(docs.map((d) => d.slotKey));
  }

  async list(workspaceId: string, filter: ListFilter, page: Page): Promise<{ items: Competitor[]; total: number }> {
    const where = { workspaceId, removed: false, ...listConditions<CompetitorDoc>(filter) };
    const [docs, total] = await Promise.all([
      this.model.find(where).sort({ _id: 1 }).skip(page.skip).limit(page.take).lean<CompetitorDoc[]>(),
      this.model.countDocuments(where),
    ]);
    return { items: docs.map(toCompetitor), total };
  }

  /**
   * Removes the association in one write: the record disappears from reads, frees its profile and
   * slot keys, and carries the removal event the relay publishes before deleting the record.
   */
  async markRemoved(workspaceId: string, id: string, event: PendingEvent): Promise<Competitor | null> {
    const d = await this.model
      .findOneAndUpdate(
        { _id: id, workspaceId, removed: false },
        { $set: { removed: true, profileKey: removedKey(id), slotKey: removedKey(id), outboxPending: true, outbox: event } },
        { new: true },
      )
      .lean<CompetitorDoc>();
    return d ? toCompetitor(d) : null;
  }
}
