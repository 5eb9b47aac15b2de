import { type Connection, mongoose } from '@social/mongo';

/**
 * One document per publish request answered with an earlier post (a replay); the request that
 * created the post is the post itself. Counted, not incremented: FerretDB applies concurrent `$inc`
 * updates as read-modify-write, so a counter would lose requests.
 */
export interface PublishAttemptDoc {
  _id: string;
  net: string;
  accountId: string;
  idempotencyKey: string;
  networkPostId: string;
  at: Date;
}

const schema = new mongoose.Schema<PublishAttemptDoc>(
  {
    _id: { type: String, required: true },
    net: { type: String, required: true },
    accountId: { type: String, required: true },
    idempotencyKey: { type: String, required: true },
    networkPostId: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'publish_attempts' },
);
schema.index({ net: 1, accountId: 1 });

export const publishAttemptModel = (conn: Connection) => conn.model<PublishAttemptDoc>('PublishAttempt', schema);
