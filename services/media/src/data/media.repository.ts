import type { Connection, Model } from 'mongoose';
import type { NewMedia } from '../domain/media.types';
import type { MediaRecords } from '../domain/ports';
import { newId } from './ids';
import { mediaModel, type MediaDoc } from './media.model';

/** Media metadata; `workspaceId` first on every tenant query. Plain objects out. */
export class MediaRepository implements MediaRecords {
  private readonly model: Model<MediaDoc>;

  constructor(conn: Connection) {
    this.model = mediaModel(conn) as Model<MediaDoc>;
  }

  newId(): string {
    return newId();
  }

  async create(fields: NewMedia): Promise<MediaDoc> {
    const now = new Date();
    const doc = await this.model.create({ ...fields, createdAt: now, updatedAt: now });
    return doc.toObject() as MediaDoc;
  }

  async find(workspaceId: string, id: string): Promise<MediaDoc | null> {
    return this.model.findOne({ _id: id, workspaceId }).lean<MediaDoc>();
  }

  async findMany(workspaceId: string, ids: string[]): Promise<MediaDoc[]> {
    if (ids.length === 0) return [];
    return this.model.find({ workspaceId, _id: { $in: ids } }).lean<MediaDoc[]>();
  }

  /** For the storage host and the worker, which know a media id (from a signature or a job) but no tenant. */
  async findById(id: string): Promise<MediaDoc | null> {
    return this.model.findOne({ _id: id }).lean<MediaDoc>();
  }

  /**
   * Updates only when the document still matches `expect` (a compare-and-set on the fields given),
   * so two racing writers cannot both win. Returns the updated document, or null.
   */
  async updateIf(id: string, expect: Partial<MediaDoc>, set: Partial<MediaDoc>): Promise<MediaDoc | null> {
    return this.model.findOneAndUpdate({ _id: id, ...expect }, { $set: { ...set, updatedAt: new Date() } }, { new: true }).lean<MediaDoc>();
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    return (await this.model.deleteOne({ _id: id, workspaceId })).deletedCount === 1;
  }

  /** Unconfirmed uploads created before `cutoff` (the equality filter is pushed down; the date check is on the small rest). */
  async findUnconfirmedBefore(cutoff: Date): Promise<MediaDoc[]> {
    const docs = await this.model.find({ unconfirmed: true }).lean<MediaDoc[]>();
    return docs.filter((d) => d.createdAt < cutoff);
  }
}
