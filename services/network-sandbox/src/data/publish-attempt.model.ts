import { type Connection, mongoose } from '@social/mongo';

/**
 * One document per publish request answered with an earlier post (a replay, only on networks that
 * keep keys); the request that created the post is the post itself. A record per replay rather than
 * a counter on the post: tests and operators see when each replay came and under which key.
 */
export interface PublishAttemptDoc {
  _id: string;
  net: string;
  accountId: string;
  clientKey: string;
  networkPostId: string;
  at: Date;
}

const schema = new mongoose.Schema<PublishAttemptDoc>(
  {
    _id: { type: String, required: true },
    net: { type: String, required: true },
    accountId: { type: String, required: true },
    clientKey: { type: String, required: true },
    networkPostId: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'publish_attempts' },
);
schema.index({ net: 1, accountId: 1 });

export const publishAttemptModel = (conn: Connection) => conn.model<PublishAttemptDoc>('PublishAttempt', schema);
