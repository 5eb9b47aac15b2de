import { Batcher, insertEach, writeErrorsOf, type Connection, type mongoose } from '@social/mongo';
import type { Deliveries, Delivery } from '../domain/ports';
import { deliveryModel, type DeliveryDoc } from './delivery.model';

const toDelivery = ({ _id, ...rest }: DeliveryDoc): Delivery => ({ id: _id, ...rest });

type SettleFields = Partial<Pick<DeliveryDoc, 'state' | 'lastStatusCode' | 'lastError' | 'nextAttemptAt' | 'deliveredAt'>>;

/** Deliveries this process stored and has not yet seen attempted, kept to spare a read. */
const MAX_RECENT = 20_000;
/** Inserts and settles per database call, and such calls in flight (of the 20 connections). */
const BATCH = { maxBatch: 100, maxInFlight: 4 };

/**
 * Fan-out inserts and the settling of attempts are batched (one `insert` / `update` command for
 * many deliveries: FerretDB's cost is mostly per command). Reads stay one per delivery with an
 * equality filter (FerretDB pushes down neither `$in` nor `$or`). A delivery this process inserted
 * is remembered until it is attempted: its first claim then needs no read (a delivery not yet
 * attempted is exactly as inserted, since only claims, settles and replays write it, and the
 * latter two need an attempt first), and its order key is known without a read.
 */
export class DeliveryRepository implements Deliveries {
  private readonly model: mongoose.Model<DeliveryDoc>;
  /** The driver's collection, for the batched writes (no per-document casting by mongoose). */
  private readonly collection: mongoose.mongo.Collection<DeliveryDoc>;
  private readonly recent = new Map<string, Delivery>();
  private readonly inserts: Batcher<Delivery, Delivery>;
  private readonly settles: Batcher<{ id: string; attempt: number; set: SettleFields; now: Date }, undefined>;

  constructor(conn: Connection) {
    this.model = deliveryModel(conn);
    this.collection = this.model.collection as unknown as mongoose.mongo.Collection<DeliveryDoc>;
    this.inserts = new Batcher((ds) => this.insertBatch(ds), BATCH);
    this.settles = new Batcher((ss) => this.settleBatch(ss), BATCH);
  }

  async insertOnce(d: Delivery): Promise<Delivery> {
    const stored = await this.inserts.push(d);
    if (stored.state === 'PENDING' && stored.attempts === 0) this.remember(stored);
    return stored;
  }

  private async insertBatch(ds: Delivery[]): Promise<(Delivery | Error)[]> {
    const outcomes = await insertEach(
      this.collection,
      ds.map(({ id, ...rest }) => ({ _id: id, ...rest })),
    );
    // A duplicate is a copy of an event fanned out before: the stored delivery is the answer.
    return Promise.all(
      ds.map(async (d, i) => {
        const outcome = outcomes[i]!;
        if (outcome === 'inserted') return d;
        if (outcome instanceof Error) return new Error(`delivery ${d.id} not stored: ${outcome.message}`);
        return (await this.findById(d.id)) ?? new Error(`delivery ${d.id} not stored: its id is taken, yet no delivery has it`);
      }),
    );
  }

  private remember(d: Delivery): void {
    if (this.recent.size >= MAX_RECENT) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(d.id, d);
  }

  async findById(id: string): Promise<Delivery | null> {
    const d = await this.model.findById(id).lean<DeliveryDoc>();
    return d ? toDelivery(d) : null;
  }

  async get(workspaceId: string, endpointId: string, id: string): Promise<Delivery | null> {
    const d = await this.model.findOne({ _id: id, workspaceId, endpointId }).lean<DeliveryDoc>();
    return d ? toDelivery(d) : null;
  }

  /**
   * Newest first. The filter is equality only; the sort runs on one endpoint's log (FerretDB sorts
   * in memory), which the retention of deliveries keeps bounded.
   */
  async list(workspaceId: string, endpointId: string, page: { skip: number; take: number }) {
    const filter = { workspaceId, endpointId };
    const [docs, total] = await Promise.all([
      this.model.find(filter).sort({ createdAt: -1, _id: -1 }).skip(page.skip).limit(page.take).lean<DeliveryDoc[]>(),
      this.model.countDocuments(filter),
    ]);
    return { items: docs.map(toDelivery), total };
  }

  async claim(id: string, attempt: number, now: Date, leaseUntil: Date): Promise<boolean> {
    const r = await this.model.updateOne(
      { _id: id, state: 'PENDING', attempts: attempt - 1 },
      { $set: { attempts: attempt, lastAttemptAt: now, nextAttemptAt: leaseUntil, updatedAt: now } },
    );
    return r.modifiedCount === 1;
  }

  async claimById(id: string, attempt: number, now: Date, leaseUntil: Date): Promise<Delivery | null> {
    const known = attempt === 1 ? this.recent.get(id) : undefined;
    if (known) {
      this.recent.delete(id);
      if (!(await this.claim(id, attempt, now, leaseUntil))) return null;
      return { ...known, attempts: attempt, lastAttemptAt: now, nextAttemptAt: leaseUntil, updatedAt: now };
    }
    const d = await this.model
      .findOneAndUpdate(
        { _id: id, state: 'PENDING', attempts: attempt - 1 },
        { $set: { attempts: attempt, lastAttemptAt: now, nextAttemptAt: leaseUntil, updatedAt: now } },
        { new: true },
      )
      .lean<DeliveryDoc>();
    return d ? toDelivery(d) : null;
  }

  async settle(id: string, attempt: number, set: SettleFields, now: Date): Promise<void> {
    this.recent.delete(id);
    await this.settles.push({ id, attempt, set, now });
  }

  private async settleBatch(ss: { id: string; attempt: number; set: SettleFields; now: Date }[]): Promise<(undefined | Error)[]> {
    try {
      await this.collection.bulkWrite(
        ss.map(({ id, attempt, set, now }) => ({
          updateOne: { filter: { _id: id, state: 'PENDING', attempts: attempt }, update: { $set: { ...set, updatedAt: now } } },
        })),
        { ordered: false },
      );
      return ss.map(() => undefined);
    } catch (err) {
      const failed = writeErrorsOf(err);
      if (!failed) throw err;
      return ss.map((s, i) => {
        const w = failed.get(i);
        return w ? new Error(`delivery ${s.id} not settled: ${w.errmsg ?? `code ${w.code}`}`) : undefined;
      });
    }
  }

  async withPendingOfKey(id: string): Promise<{ delivery: Delivery | null; pendingOfKey: Delivery[] }> {
    // The order key of a delivery changes only on a replay (to none), so a remembered one is only
    // trusted when the read finds the delivery itself among the key's pending ones.
    const key = this.recent.get(id)?.orderKey;
    if (key) {
      const pending = await this.pendingOfKey(key);
      const delivery = pending.find((p) => p.id === id);
      if (delivery) return { delivery, pendingOfKey: pending };
    }
    const delivery = await this.findById(id);
    if (!delivery?.orderKey || delivery.state !== 'PENDING') return { delivery, pendingOfKey: [] };
    return { delivery, pendingOfKey: await this.pendingOfKey(delivery.orderKey) };
  }

  async pendingOfKey(orderKey: string): Promise<Delivery[]> {
    return (await this.model.find({ orderKey, state: 'PENDING' }).lean<DeliveryDoc[]>()).map(toDelivery);
  }

  async allPending(): Promise<Delivery[]> {
    return (await this.model.find({ state: 'PENDING' }).lean<DeliveryDoc[]>()).map(toDelivery);
  }

  async deleteSettledBefore(state: 'DELIVERED' | 'FAILED', before: Date, limit: number): Promise<number> {
    // Equality on state (pushed down by FerretDB), the age checked beside it; ids first so that
    // one call deletes a bounded number, and the delete repeats the condition, so a delivery
    // replayed in between (PENDING again, updated now) stays.
    const filter = { state, updatedAt: { $lt: before } };
    const ids = (await this.model.find(filter, { _id: 1 }).limit(limit).lean<{ _id: string }[]>()).map((d) => d._id);
    if (ids.length === 0) return 0;
    return (await this.model.deleteMany({ _id: { $in: ids }, ...filter })).deletedCount;
  }

  async reopen(workspaceId: string, endpointId: string, id: string, now: Date): Promise<Delivery | null> {
    // A replay is on demand: it is not held back by (nor holds back) the post's other deliveries.
    const d = await this.model
      .findOneAndUpdate(
        { _id: id, workspaceId, endpointId, state: { $in: ['DELIVERED', 'FAILED'] } },
        { $set: { state: 'PENDING', orderKey: null, nextAttemptAt: now, windowStart: now, updatedAt: now } },
        { new: true },
      )
      .lean<DeliveryDoc>();
    return d ? toDelivery(d) : null;
  }
}
