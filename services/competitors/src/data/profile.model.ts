import { Schema, type Connection } from 'mongoose';

import type { ProfileStatusLevel } from '../domain/ports';

export type { ProfileStatusLevel };

export interface ProfileDoc {
  _id: string;
  workspaceId: string;
  net: string;
  networkAccountId: string;
  name: string;
  username: string;
  picture: string;
  /** AES-256-GCM (AtRestCipher); never returned by the API, never logged. */
  accessTokenEnc: string;
  statusLevel: ProfileStatusLevel;
  statusReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const profileSchema = new Schema<ProfileDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    net: { type: String, required: true },
    networkAccountId: { type: String, required: true },
    name: { type: String, required: true },
    username: { type: String, required: true },
    picture: { type: String, required: true },
    accessTokenEnc: { type: String, required: true },
    statusLevel: { type: String, required: true, enum: ['OK', 'ERROR'] },
    statusReason: { type: String, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'profiles' },
);
// One profile per network account and workspace: a second connect (even a concurrent one) collides.
profileSchema.index({ workspaceId: 1, net: 1, networkAccountId: 1 }, { unique: true });
// Lists are scoped by workspace and ordered by _id (creation order).
profileSchema.index({ workspaceId: 1, _id: 1 });

export const profileModel = (conn: Connection) => (conn.models['Profile'] as ReturnType<typeof build> | undefined) ?? build(conn);
const build = (conn: Connection) => conn.model<ProfileDoc>('Profile', profileSchema);
