import { Schema, type Connection, type Model } from 'mongoose';
import type { JobError, LedgerState } from '../domain/ports';

/** The exactly-once ledger: one document per (post, profile); `_id` is the publish key. */
export interface LedgerDoc {
  _id: string;
  workspaceId: string | null;
  postId: string;
  profileId: string;
  net: string;
  state: LedgerState;
  revision: number;
  attemptId: string;
  attempts: number;
  accountId: string | null;
  calledAt: Date | null;
  fingerprint: string | null;
  /** Absent in entries written before these fields existed: null. */
  idempotencyKeys?: string[] | null;
  calledUntil?: Date | null;
  networkPostId: string | null;
  publishedAt: Date | null;
  error: JobError | null;
  final: boolean;
  retryAt: Date | null;
  updatedAt: Date;
  /**
   * The `publish_attempts` documents (an earlier release's ledger) merged into this entry by the
   * upgrade (data/legacy-attempts.ts): each is merged once. Absent in every other entry.
   */
  migratedFrom?: string[];
}

const ledgerSchema = new Schema<LedgerDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, default: null },
    postId: { type: String, required: true },
    profileId: { type: String, required: true },
    net: { type: String, required: true },
    state: { type: String, required: true },
    revision: { type: Number, required: true },
    attemptId: { type: String, required: true },
    attempts: { type: Number, required: true },
    accountId: { type: String, default: null },
    calledAt: { type: Date, default: null },
    fingerprint: { type: String, default: null },
    idempotencyKeys: { type: [String], default: null },
    calledUntil: { type: Date, default: null },
    networkPostId: { type: String, default: null },
    publishedAt: { type: Date, default: null },
    error: { type: Schema.Types.Mixed, default: null },
    final: { type: Boolean, required: true },
    retryAt: { type: Date, default: null },
    updatedAt: { type: Date, required: true },
    migratedFrom: { type: [String], default: undefined },
  },
  { versionKey: false, collection: 'publish_ledger', minimize: false },
);
ledgerSchema.index({ networkPostId: 1 });
// Reconciling by content: the other attempts that sent the same content (see callingWithSameContent).
ledgerSchema.index({ fingerprint: 1 });

/**
 * A network post matched to one of our publishes by its content (reconciling an unknown outcome):
 * `_id` `${net}:${networkPostId}`, unique, so one network post is never given to two keys.
 */
export interface NetworkPostClaimDoc {
  _id: string;
  key: string;
  at: Date;
}
const claimSchema = new Schema<NetworkPostClaimDoc>(
  { _id: { type: String, required: true }, key: { type: String, required: true }, at: { type: Date, required: true } },
  { versionKey: false, collection: 'network_post_claims' },
);

export const ledgerModel = (conn: Connection): Model<LedgerDoc> =>
  (conn.models['LedgerEntry'] as Model<LedgerDoc> | undefined) ?? conn.model<LedgerDoc>('LedgerEntry', ledgerSchema);
export const networkPostClaimModel = (conn: Connection): Model<NetworkPostClaimDoc> =>
  (conn.models['NetworkPostClaim'] as Model<NetworkPostClaimDoc> | undefined) ??
  conn.model<NetworkPostClaimDoc>('NetworkPostClaim', claimSchema);
