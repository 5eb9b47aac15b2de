import { randomBytes } from 'node:crypto';
import type { ApiKeyDoc, GatewayModels, WorkspaceDoc } from './workspace.model';
import { hashApiKey, newApiId, newApiKey } from '../auth/api-key';

export interface Workspace {
  id: string;
  name: string;
  plan: string;
  createdAt: string;
}

export interface IssuedKey {
  workspaceId: string;
  apiId: string;
  /** Shown once; only its hash is stored. */
  apiKey: string;
}

export interface KeyRecord {
  workspaceId: string;
  keyHash: string;
  plan: string;
  revoked: boolean;
}

const toWorkspace = (d: WorkspaceDoc): Workspace => ({
  id: d._id,
  name: d.name,
  plan: d.plan,
  createdAt: d.createdAt.toISOString(),
});

export class WorkspaceRepository {
  constructor(private readonly models: GatewayModels) {}

  async createWorkspace(name: string, plan: string): Promise<Workspace> {
    const doc = await this.models.Workspace.create({
      _id: `ws_${randomBytes(12).toString('hex')}`,
      name,
      plan,
      createdAt: new Date(),
    });
    return toWorkspace(doc.toObject());
  }

  async findWorkspace(id: string): Promise<Workspace | null> {
    const d = await this.models.Workspace.findById(id).lean<WorkspaceDoc>();
    return d ? toWorkspace(d) : null;
  }

  async listWorkspaces(): Promise<(Workspace & { activeKeys: number })[]> {
    const [workspaces, keys] = await Promise.all([
      this.models.Workspace.find().sort({ createdAt: 1 }).lean<WorkspaceDoc[]>(),
      this.models.ApiKey.find({ revokedAt: null }, { workspaceId: 1 }).lean<Pick<ApiKeyDoc, 'workspaceId'>[]>(),
    ]);
    const counts = new Map<string, number>();
    for (const k of keys) counts.set(k.workspaceId, (counts.get(k.workspaceId) ?? 0) + 1);
    return workspaces.map((w) => ({ ...toWorkspace(w), activeKeys: counts.get(w._id) ?? 0 }));
  }

  async issueKey(workspaceId: string): Promise<IssuedKey> {
    const apiId = newApiId();
    const apiKey = newApiKey();
    await this.models.ApiKey.create({
      _id: apiId,
      workspaceId,
      keyHash: hashApiKey(apiKey),
      createdAt: new Date(),
      revokedAt: null,
    });
    return { workspaceId, apiId, apiKey };
  }

  /** Returns false when no active key has that id. */
  async revokeKey(apiId: string): Promise<boolean> {
    const res = await this.models.ApiKey.updateOne({ _id: apiId, revokedAt: null }, { $set: { revokedAt: new Date() } });
    return res.modifiedCount === 1;
  }

  async findKey(apiId: string): Promise<KeyRecord | null> {
    const key = await this.models.ApiKey.findById(apiId).lean<ApiKeyDoc>();
    if (!key) return null;
    const ws = await this.models.Workspace.findById(key.workspaceId).lean<WorkspaceDoc>();
    if (!ws) return null;
    return { workspaceId: key.workspaceId, keyHash: key.keyHash, plan: ws.plan, revoked: key.revokedAt !== null };
  }
}
