import { isDuplicateKeyError, type Connection, type mongoose } from '@social/mongo';
import type { Deliveries, Delivery } from '../domain/ports';
import { deliveryModel, type DeliveryDoc } from './delivery.model';

const toDelivery = ({ _id, ...rest }: DeliveryDoc): Delivery => ({ id: _id, ...rest });

export class DeliveryRepository implements Deliveries {
  private readonly model: mongoose.Model<DeliveryDoc>;

  constructor(conn: Connection) {
    this.model = deliveryModel(conn);
  }

  async insertOnce(d: Delivery): Promise<Delivery> {
    const { id, ...rest } = d;
    try {
      await this.model.create({ _id: id, ...rest });
      return d;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const existing = await this.findById(id);
      if (!existing) throw err;
      return existing;
    }
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
    const d = await this.model
      .findOneAndUpdate(
        { _id: id, state: 'PENDING', attempts: attempt - 1 },
        { $set: { attempts: attempt, lastAttemptAt: now, nextAttemptAt: leaseUntil, updatedAt: now } },
        { new: true },
      )
      .lean<DeliveryDoc>();
    return d ? toDelivery(d) : null;
  }

  async settle(id: string, attempt: number, set: Partial<DeliveryDoc>, now: Date): Promise<void> {
    await this.model.updateOne({ _id: id, state: 'PENDING', attempts: attempt }, { $set: { ...set, updatedAt: now } });
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
