import { Schema, type Connection } from 'mongoose';

import type { CompetitorStatusLevel } from '../domain/ports';

export type { CompetitorStatusLevel };

export interface CompetitorDoc {
  _id: string;
  workspaceId: string;
  /** The public profile id of GET /search/profiles (`net:accountId`). */
  profileId: string;
  /** The plan slot the competitor holds: 0 … limit-1, unique per workspace. */
  slot: number;
  net: string;
  networkAccountId: string;
  name: string;
  username: string;
  picture: string;
  statusLevel: CompetitorStatusLevel;
  createdAt: Date;
}

const competitorSchema = new Schema<CompetitorDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    profileId: { type: String, required: true },
    slot: { type: Number, required: true },
    net: { type: String, required: true },
    networkAccountId: { type: String, required: true },
    name: { type: String, required: true },
    username: { type: String, required: true },
    picture: { type: String, required: true },
    statusLevel: { type: String, required: true, enum: ['ACTIVE', 'NOT_AVAILABLE'] },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'competitors' },
);
// Unique indexes keep concurrent adds honest without a counter to keep in step: one record per
// profile, and at most `limit` records because only slots below it are taken. Removing deletes the
// record, which frees both keys at once.
competitorSchema.index({ workspaceId: 1, profileId: 1 }, { unique: true });
competitorSchema.index({ workspaceId: 1, slot: 1 }, { unique: true });
competitorSchema.index({ workspaceId: 1, _id: 1 });

export const competitorModel = (conn: Connection) => (conn.models['Competitor'] as ReturnType<typeof build> | undefined) ?? build(conn);
const build = (conn: Connection) => conn.model<CompetitorDoc>('Competitor', competitorSchema);
