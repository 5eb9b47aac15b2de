import { Schema, type Connection } from 'mongoose';
import { outboxSchemaFields, type WithOutbox } from './outbox.fields';

export type CompetitorStatusLevel = 'ACTIVE' | 'NOT_AVAILABLE';

export interface CompetitorDoc extends WithOutbox {
  _id: string;
  workspaceId: string;
  /** The public profile id of GET /search/profiles (`net:accountId`). */
  profileId: string;
  /**
   * Unique per workspace while the competitor is tracked (= profileId); a removed competitor's keys
   * become `removed:<id>`, so a re-add is free at once while its removal event is still pending.
   */
  profileKey: string;
  /** The plan slot the competitor holds: `0` … `limit-1` (unique per workspace), `removed:<id>` after. */
  slotKey: string;
  net: string;
  networkAccountId: string;
  name: string;
  username: string;
  picture: string;
  statusLevel: CompetitorStatusLevel;
  removed: boolean;
  createdAt: Date;
}

const competitorSchema = new Schema<CompetitorDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    profileId: { type: String, required: true },
    profileKey: { type: String, required: true },
    slotKey: { type: String, required: true },
    net: { type: String, required: true },
    networkAccountId: { type: String, required: true },
    name: { type: String, required: true },
    username: { type: String, required: true },
    picture: { type: String, required: true },
    statusLevel: { type: String, required: true, enum: ['ACTIVE', 'NOT_AVAILABLE'] },
    removed: { type: Boolean, required: true, default: false },
    createdAt: { type: Date, required: true },
    ...outboxSchemaFields,
  },
  { versionKey: false, collection: 'competitors' },
);
// Unique indexes, not counters, keep concurrent adds honest (FerretDB's concurrent $inc is not):
// one record per profile, and at most `limit` records because only slots below it are taken.
competitorSchema.index({ workspaceId: 1, profileKey: 1 }, { unique: true });
competitorSchema.index({ workspaceId: 1, slotKey: 1 }, { unique: true });
competitorSchema.index({ workspaceId: 1, removed: 1, _id: 1 });
competitorSchema.index({ outboxPending: 1 });

export const competitorModel = (conn: Connection) =>
  (conn.models['Competitor'] as ReturnType<typeof build> | undefined) ?? build(conn);
const build = (conn: Connection) => conn.model<CompetitorDoc>('Competitor', competitorSchema);
