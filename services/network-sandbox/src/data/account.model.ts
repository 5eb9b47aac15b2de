import { type Connection, mongoose } from '@social/mongo';

export interface AccountDoc {
  _id: string;
  net: string;
  kind: string;
  name: string;
  username: string;
  /** Usernames are case-insensitive on the networks; exact-username search is an equality query. */
  usernameLower: string;
  seededAt: Date;
}

const schema = new mongoose.Schema<AccountDoc>(
  {
    _id: { type: String, required: true },
    net: { type: String, required: true },
    kind: { type: String, required: true },
    name: { type: String, required: true },
    username: { type: String, required: true },
    usernameLower: { type: String, required: true },
    seededAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'accounts' },
);
schema.index({ net: 1, usernameLower: 1 }, { unique: true });

export const accountModel = (conn: Connection) => conn.model<AccountDoc>('Account', schema);
