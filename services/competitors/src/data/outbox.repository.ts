import { randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import { currentTraceparent } from '@social/events';
import { getContext } from '@social/logger';
import type { CollectionEvent, EventOutbox } from '../domain/ports';
import { outboxModel, type OutboxDoc } from './outbox.model';

export class OutboxRepository implements EventOutbox {
  readonly model: Model<OutboxDoc>;

  constructor(conn: Connection) {
    this.model = outboxModel(conn);
  }

  /** Records an event due now, remembering the request it came from for log correlation. */
  async add(event: CollectionEvent): Promise<string> {
    const ctx = getContext();
    const now = new Date();
    const doc = await this.model.create({
      _id: randomUUID(),
      since: null,
      until: null,
      ...event,
      correlationId: ctx.correlationId ?? ctx.requestId ?? null,
      traceparent: currentTraceparent(),
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
    });
    return doc._id;
  }

  async remove(id: string): Promise<void> {
    await this.model.deleteOne({ _id: id });
  }

  /** Soonest due first, so events in a long backoff never hide due ones beyond the batch. */
  async due(limit: number): Promise<OutboxDoc[]> {
    const now = Date.now();
    const docs = await this.model.find({}).sort({ nextAttemptAt: 1 }).limit(limit).lean<OutboxDoc[]>();
    return docs.filter((d) => d.nextAttemptAt.getTime() <= now);
  }

  /** Takes the event for `leaseMs`; false when it changed meanwhile. */
  async claim(doc: OutboxDoc, leaseMs: number): Promise<boolean> {
    const res = await this.model.updateOne(
      { _id: doc._id, attempts: doc.attempts },
      { $set: { attempts: doc.attempts + 1, nextAttemptAt: new Date(Date.now() + leaseMs) } },
    );
    return res.modifiedCount === 1;
  }

  async retryAt(id: string, at: Date): Promise<void> {
    await this.model.updateOne({ _id: id }, { $set: { nextAttemptAt: at } });
  }
}
