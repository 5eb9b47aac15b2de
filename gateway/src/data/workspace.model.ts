import { Schema, type Connection, type Model } from 'mongoose';

export interface WorkspaceDoc {
  _id: string;
  name: string;
  plan: string;
  createdAt: Date;
}

const workspaceSchema = new Schema<WorkspaceDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    plan: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'workspaces' },
);

export interface ApiKeyDoc {
  /** The public half (X-API-ID). */
  _id: string;
  workspaceId: string;
  /** SHA-256 of the secret half; the secret itself is never stored. */
  keyHash: string;
  createdAt: Date;
  revokedAt: Date | null;
}

const apiKeySchema = new Schema<ApiKeyDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true, index: true },
    keyHash: { type: String, required: true },
    createdAt: { type: Date, required: true },
    revokedAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'api_keys' },
);

export function gatewayModels(conn: Connection) {
  return {
    Workspace: (conn.models['Workspace'] as Model<WorkspaceDoc> | undefined) ?? conn.model<WorkspaceDoc>('Workspace', workspaceSchema),
    ApiKey: (conn.models['ApiKey'] as Model<ApiKeyDoc> | undefined) ?? conn.model<ApiKeyDoc>('ApiKey', apiKeySchema),
  };
}

export type GatewayModels = ReturnType<typeof gatewayModels>;
