import type { Connection, Model } from 'mongoose';
import { minuteOf } from '../domain/publishing/due-minute';
import { publishTaskModel, type PublishTaskDoc } from './publish-task.model';

export type PublishTask = Omit<PublishTaskDoc, '_id'> & { id: string };

const toTask = ({ _id, ...rest }: PublishTaskDoc): PublishTask => ({ id: _id, ...rest });
export const taskId = (postId: string, revision: number) => `${postId}:${revision}`;

/**
 * Tasks change hands only through conditional updates (state, claim token): several posts replicas
 * run the dispatcher, and FerretDB has no transactions. A lost race costs at worst a duplicate job,
 * which the publisher's ledger absorbs.
 */
export class PublishTaskRepository {
  private readonly model: Model<PublishTaskDoc>;

  constructor(conn: Connection) {
    this.model = publishTaskModel(conn);
  }

  /** Plans (or re-plans) a revision: written before the post itself, so a crash between leaves an
   *  extra task (verified against the post at dispatch), never a scheduled post without one. */
  async plan(workspaceId: string, postId: string, revision: number, dueAt: Date, requestId: string | null): Promise<void> {
    const now = new Date();
    await this.model.updateOne(
      { _id: taskId(postId, revision) },
      {
        $set: { workspaceId, postId, revision, dueAt, dueMinute: minuteOf(dueAt), state: 'WAITING', requestId, claimToken: null, leaseUntil: null, updatedAt: now },
        $setOnInsert: { dispatchedAt: null, checkMinute: null, checkAt: null, reconcileRounds: 0, createdAt: now },
      },
      { upsert: true },
    );
  }

  /** Waiting tasks of older revisions will never be wanted: spare the dispatcher and the workers. */
  async cancelOlder(postId: string, revision: number): Promise<void> {
    const older = await this.model.find({ postId, state: 'WAITING' }).select('_id revision').lean<Pick<PublishTaskDoc, '_id' | 'revision'>[]>();
    for (const t of older) {
      if (t.revision < revision) await this.model.updateOne({ _id: t._id, state: 'WAITING' }, { $set: { state: 'CANCELLED', updatedAt: new Date() } });
    }
  }

  async get(id: string): Promise<PublishTask | null> {
    const d = await this.model.findById(id).lean<PublishTaskDoc>();
    return d ? toTask(d) : null;
  }

  /** The waiting tasks of a bucket (one equality query), for the dispatcher to claim one by one. */
  async waitingIn(dueMinute: string): Promise<PublishTask[]> {
    return (await this.model.find({ dueMinute, state: 'WAITING' }).lean<PublishTaskDoc[]>()).map(toTask);
  }

  /** Claims one waiting task, whatever its due time (the dispatcher decides when to send it). */
  async claimOne(id: string, now: Date, token: string, leaseMs: number): Promise<PublishTask | null> {
    const d = await this.model
      .findOneAndUpdate(
        { _id: id, state: 'WAITING' },
        { $set: { state: 'CLAIMED', claimToken: token, leaseUntil: new Date(now.getTime() + leaseMs), updatedAt: now } },
        { new: true },
      )
      .lean<PublishTaskDoc>();
    return d ? toTask(d) : null;
  }

  /** Takes over claims whose lease ran out (their replica died between claim and dispatch). */
  async reclaimExpired(dueMinute: string, now: Date, token: string, leaseMs: number): Promise<PublishTask[]> {
    const claimed = await this.model.find({ dueMinute, state: 'CLAIMED' }).lean<PublishTaskDoc[]>();
    const out: PublishTask[] = [];
    for (const t of claimed) {
      if (!t.leaseUntil || t.leaseUntil.getTime() > now.getTime()) continue;
      const d = await this.model
        .findOneAndUpdate(
          { _id: t._id, state: 'CLAIMED', claimToken: t.claimToken },
          { $set: { claimToken: token, leaseUntil: new Date(now.getTime() + leaseMs), updatedAt: now } },
          { new: true },
        )
        .lean<PublishTaskDoc>();
      if (d) out.push(toTask(d));
    }
    return out;
  }

  async markDispatched(id: string, token: string, now: Date, checkAt: Date): Promise<void> {
    await this.model.updateOne(
      { _id: id, state: 'CLAIMED', claimToken: token },
      { $set: { state: 'DISPATCHED', dispatchedAt: now, checkAt, checkMinute: minuteOf(checkAt), leaseUntil: null, updatedAt: now } },
    );
  }

  /** Back to waiting at another time (the post moved), or out (stale, gone). */
  async release(id: string, token: string, change: { state: 'WAITING'; dueAt: Date } | { state: 'CANCELLED' | 'DONE' }): Promise<void> {
    const set: Record<string, unknown> = { state: change.state, claimToken: null, leaseUntil: null, updatedAt: new Date() };
    if (change.state === 'WAITING') Object.assign(set, { dueAt: change.dueAt, dueMinute: minuteOf(change.dueAt) });
    await this.model.updateOne({ _id: id, claimToken: token }, { $set: set });
  }

  /** Dispatched tasks the watchdog should look at in this bucket (checkAt passed). */
  async dueForCheck(checkMinute: string, now: Date): Promise<PublishTask[]> {
    const ds = await this.model.find({ checkMinute, state: 'DISPATCHED' }).lean<PublishTaskDoc[]>();
    return ds.filter((d) => d.checkAt && d.checkAt.getTime() <= now.getTime()).map(toTask);
  }

  async recheckLater(id: string, rounds: number, checkAt: Date): Promise<void> {
    await this.model.updateOne(
      { _id: id, state: 'DISPATCHED' },
      { $set: { reconcileRounds: rounds, checkAt, checkMinute: minuteOf(checkAt), updatedAt: new Date() } },
    );
  }

  async markDone(id: string): Promise<void> {
    await this.model.updateOne({ _id: id, state: { $in: ['DISPATCHED', 'CLAIMED', 'WAITING'] } }, { $set: { state: 'DONE', updatedAt: new Date() } });
  }
}
