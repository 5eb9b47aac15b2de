import type { Connection, Model } from 'mongoose';
import { labelModel, type LabelDoc } from './label.model';
import type { Label, LabelStore } from '../domain/labels/ports';
import { newId } from './ids';

const toLabel = (d: LabelDoc): Label => ({ id: d._id, name: d.name, color: d.color });

export class LabelRepository implements LabelStore {
  private readonly model: Model<LabelDoc>;

  constructor(conn: Connection) {
    this.model = labelModel(conn);
  }

  async create(workspaceId: string, fields: { name: string; color: string }): Promise<Label> {
    const doc = await this.model.create({ _id: newId(), workspaceId, ...fields, createdAt: new Date() });
    return toLabel(doc.toObject());
  }

  /** Oldest first: ids are time-ordered, so _id is a stable order that survives equal timestamps. */
  async list(workspaceId: string, page: { skip: number; take: number }): Promise<{ items: Label[]; total: number }> {
    const [docs, total] = await Promise.all([
      this.model.find({ workspaceId }).sort({ _id: 1 }).skip(page.skip).limit(page.take).lean<LabelDoc[]>(),
      this.model.countDocuments({ workspaceId }),
    ]);
    return { items: docs.map(toLabel), total };
  }

  /** The labels of the given ids that exist in the workspace (others are silently absent). */
  async findMany(workspaceId: string, ids: string[]): Promise<Label[]> {
    if (ids.length === 0) return [];
    const docs = await this.model.find({ workspaceId, _id: { $in: ids } }).lean<LabelDoc[]>();
    return docs.map(toLabel);
  }
}
