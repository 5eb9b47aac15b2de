import type { Connection, mongoose } from '@social/mongo';
import { targetKey, type TargetKind, type TargetStore } from '../domain/ports';
import { targetModel, type TargetDoc } from './target.model';

export interface TargetInput {
  kind: TargetKind;
  id: string;
  net: string;
  accountId: string;
}

/** The registry of targets the periodic refresh walks through. */
export class TargetRepository implements TargetStore {
  private readonly model: mongoose.Model<TargetDoc>;

  constructor(conn: Connection) {
    this.model = targetModel(conn);
  }

  /** Idempotent: a second job for the same target updates it in place. */
  async remember(ws: string, t: TargetInput): Promise<void> {
    await this.model.updateOne(
      { _id: targetKey(t.kind, t.id) },
      {
        $set: { ws, kind: t.kind, targetId: t.id, net: t.net, accountId: t.accountId },
        $setOnInsert: { createdAt: new Date(), lastCollectedAt: null, lastError: null },
      },
      { upsert: true },
    );
  }

  async get(kind: TargetKind, id: string): Promise<TargetDoc | null> {
    return this.model.findOne({ _id: targetKey(kind, id) }).lean();
  }

  async forget(kind: TargetKind, id: string): Promise<boolean> {
    return (await this.model.deleteOne({ _id: targetKey(kind, id) })).deletedCount > 0;
  }

  async recordOutcome(kind: TargetKind, id: string, error: string | null): Promise<void> {
    const set = error === null ? { lastCollectedAt: new Date(), lastError: null } : { lastError: error };
    await this.model.updateOne({ _id: targetKey(kind, id) }, { $set: set });
  }

  /** Every target, in batches (the registry may be large; nothing is held in memory at once). */
  async *all(batchSize = 500): AsyncGenerator<TargetDoc> {
    for await (const doc of this.model.find({}).lean().batchSize(batchSize).cursor()) yield doc as TargetDoc;
  }
}
