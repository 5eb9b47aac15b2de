import type { Connection, Model } from 'mongoose';
import type { NetworkCode } from '@social/networks';
import { isDuplicateKeyError } from '@social/mongo';
import type { ListFilter, NewProfile, Page, Profile, ProfileReconnect, ProfileStatusLevel, ProfileStore } from '../domain/ports';
import { newId } from './ids';
import { listConditions } from './list-filter';
import { profileModel, type ProfileDoc } from './profile.model';

const toProfile = (d: ProfileDoc): Profile => ({
  id: d._id,
  workspaceId: d.workspaceId,
  net: d.net as NetworkCode,
  networkAccountId: d.networkAccountId,
  name: d.name,
  username: d.username,
  picture: d.picture,
  statusLevel: d.statusLevel,
  statusReason: d.statusReason ?? null,
});

const PUBLIC_FIELDS = { accessTokenEnc: 0 };

export class ProfileRepository implements ProfileStore {
  readonly model: Model<ProfileDoc>;

  constructor(conn: Connection) {
    this.model = profileModel(conn);
  }

  newId(): string {
    return newId();
  }

  /** Null on a duplicate key: the workspace already has this network account (unique index). */
  async create(workspaceId: string, p: NewProfile): Promise<Profile | null> {
    const now = new Date();
    const { id, ...fields } = p;
    try {
      const doc = await this.model.create({
        _id: id,
        workspaceId,
        ...fields,
        createdAt: now,
        updatedAt: now,
      });
      return toProfile(doc.toObject());
    } catch (err) {
      if (isDuplicateKeyError(err)) return null;
      throw err;
    }
  }

  async findByAccount(workspaceId: string, net: string, networkAccountId: string): Promise<Profile | null> {
    const d = await this.model.findOne({ workspaceId, net, networkAccountId }, PUBLIC_FIELDS).lean<ProfileDoc>();
    return d ? toProfile(d) : null;
  }

  async exists(id: string): Promise<boolean> {
    return (await this.model.exists({ _id: id })) !== null;
  }

  async findById(workspaceId: string, id: string): Promise<Profile | null> {
    const d = await this.model.findOne({ _id: id, workspaceId }, PUBLIC_FIELDS).lean<ProfileDoc>();
    return d ? toProfile(d) : null;
  }

  /** The stored (encrypted) token of a profile of the workspace; null when there is no such profile. */
  async encryptedTokenOf(workspaceId: string, id: string): Promise<string | null> {
    const d = await this.model.findOne({ _id: id, workspaceId }, { accessTokenEnc: 1 }).lean<Pick<ProfileDoc, 'accessTokenEnc'>>();
    return d?.accessTokenEnc ?? null;
  }

  async findMany(workspaceId: string, ids: string[]): Promise<Profile[]> {
    if (ids.length === 0) return [];
    const docs = await this.model
      .find({ workspaceId, _id: { $in: ids } }, PUBLIC_FIELDS)
      .sort({ _id: 1 })
      .lean<ProfileDoc[]>();
    return docs.map(toProfile);
  }

  /** Connected profiles of one network, oldest first. */
  async findOnNet(workspaceId: string, net: string): Promise<Profile[]> {
    const docs = await this.model.find({ workspaceId, net }, PUBLIC_FIELDS).sort({ _id: 1 }).lean<ProfileDoc[]>();
    return docs.map(toProfile);
  }

  async list(workspaceId: string, filter: ListFilter, page: Page): Promise<{ items: Profile[]; total: number }> {
    const where = { workspaceId, ...listConditions<ProfileDoc>(filter) };
    const [docs, total] = await Promise.all([
      this.model.find(where, PUBLIC_FIELDS).sort({ _id: 1 }).skip(page.skip).limit(page.take).lean<ProfileDoc[]>(),
      this.model.countDocuments(where),
    ]);
    return { items: docs.map(toProfile), total };
  }

  /** Sets the status; `workspaceId` undefined only for events that name the profile without one. */
  async setStatus(workspaceId: string | undefined, id: string, statusLevel: ProfileStatusLevel, reason: string | null): Promise<boolean> {
    const where = workspaceId === undefined ? { _id: id } : { _id: id, workspaceId };
    const res = await this.model.updateOne(where, { $set: { statusLevel, statusReason: reason, updatedAt: new Date() } });
    return res.matchedCount > 0;
  }

  /** A reconnect: the fresh token and profile details replace the refused ones. */
  async reconnect(workspaceId: string, id: string, fields: ProfileReconnect): Promise<Profile | null> {
    // updateOne then findOne: FerretDB's findAndModify does not support a projection.
    const res = await this.model.updateOne({ _id: id, workspaceId }, { $set: { ...fields, updatedAt: new Date() } });
    if (res.matchedCount === 0) return null;
    return this.findById(workspaceId, id);
  }
}
