import { type Connection, mongoose } from '@social/mongo';

export interface TokenDoc {
  /** SHA-256 of the token: a leaked database does not hand out working tokens. */
  _id: string;
  net: string;
  accountId: string;
  issuedAt: Date;
  revokedAt: Date | null;
}

const schema = new mongoose.Schema<TokenDoc>(
  {
    _id: { type: String, required: true },
    net: { type: String, required: true },
    accountId: { type: String, required: true },
    issuedAt: { type: Date, required: true },
    revokedAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'tokens' },
);
schema.index({ net: 1, accountId: 1 });

export const tokenModel = (conn: Connection) => conn.model<TokenDoc>('Token', schema);
