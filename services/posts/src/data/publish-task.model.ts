import { Schema, type Connection, type Model } from 'mongoose';

export type TaskState = 'WAITING' | 'CLAIMED' | 'DISPATCHED' | 'DONE' | 'CANCELLED';

/**
 * When and whether a post revision's publish jobs go out: one per (post, revision), kept apart
 * from the post document (whose writes replace it whole under optimistic versions).
 */
export interface PublishTaskDoc {
  /** `${postId}:${revision}` */
  _id: string;
  workspaceId: string;
  postId: string;
  revision: number;
  dueAt: Date;
  /** minuteOf(dueAt): the dispatcher's equality key, with `state`. */
  dueMinute: string;
  state: TaskState;
  /** The request that planned this revision (schedule, publishNow, retry, PUT): its jobs, their
   *  results and the watchdog's reconcile jobs carry it, so one id finds the whole publish. */
  requestId: string | null;
  /** A claim: the replica that holds it and until when; after that another replica may dispatch. */
  claimToken: string | null;
  leaseUntil: Date | null;
  dispatchedAt: Date | null;
  /** The watchdog's equality key (minuteOf(checkAt)) and the exact time to look again. */
  checkMinute: string | null;
  checkAt: Date | null;
  reconcileRounds: number;
  createdAt: Date;
  updatedAt: Date;
}

const schema = new Schema<PublishTaskDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    postId: { type: String, required: true },
    revision: { type: Number, required: true },
    dueAt: { type: Date, required: true },
    dueMinute: { type: String, required: true },
    state: { type: String, required: true },
    requestId: { type: String, default: null },
    claimToken: { type: String, default: null },
    leaseUntil: { type: Date, default: null },
    dispatchedAt: { type: Date, default: null },
    checkMinute: { type: String, default: null },
    checkAt: { type: Date, default: null },
    reconcileRounds: { type: Number, default: 0 },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'publish_tasks', minimize: false },
);
schema.index({ dueMinute: 1, state: 1 });
schema.index({ checkMinute: 1, state: 1 });
schema.index({ claimToken: 1 });
schema.index({ postId: 1 });

export const publishTaskModel = (conn: Connection): Model<PublishTaskDoc> =>
  (conn.models['PublishTask'] as Model<PublishTaskDoc> | undefined) ?? conn.model<PublishTaskDoc>('PublishTask', schema);
