import mongoose, { type Connection } from 'mongoose';
import { isDuplicateKeyError } from './duplicate-key';

interface ProcessedEvent {
  _id: string;
  consumer: string;
  eventId: string;
  type: string;
  processedAt: Date;
}

const schema = new mongoose.Schema<ProcessedEvent>(
  {
    _id: { type: String, required: true },
    consumer: { type: String, required: true },
    eventId: { type: String, required: true },
    type: { type: String, required: true },
    processedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'processed_events' },
);
// prune() filters on consumer by equality (pushed down by FerretDB) and then on the date.
schema.index({ consumer: 1, processedAt: 1 });

/**
 * `processed_events` in the consuming service's own database; `_id` is `<consumer>:<eventId>`, so
 * the unique _id index makes concurrent marks of one event collide instead of duplicating.
 * FerretDB has no TTL indexes, hence `processedAt` and prune() (run it from a periodic job).
 */
/** The ProcessedEventStore of @social/events (`idempotent(store, handler)`) in MongoDB. */
export class MongoProcessedEventStore {
  private readonly model: mongoose.Model<ProcessedEvent>;

  constructor(
    conn: Connection,
    readonly consumerName: string,
  ) {
    this.model =
      (conn.models['ProcessedEvent'] as mongoose.Model<ProcessedEvent> | undefined) ?? conn.model<ProcessedEvent>('ProcessedEvent', schema);
  }

  async has(eventId: string): Promise<boolean> {
    return (await this.model.findById(this.key(eventId)).select('_id').lean()) !== null;
  }

  async markProcessed(eventId: string, type: string): Promise<void> {
    try {
      await this.model.create({
        _id: this.key(eventId),
        consumer: this.consumerName,
        eventId,
        type,
        processedAt: new Date(),
      });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
  }

  /** Forgets events processed before `olderThan`; returns how many were removed. */
  async prune(olderThan: Date): Promise<number> {
    const result = await this.model.deleteMany({ consumer: this.consumerName, processedAt: { $lt: olderThan } });
    return result.deletedCount;
  }

  private key(eventId: string): string {
    return `${this.consumerName}:${eventId}`;
  }
}
