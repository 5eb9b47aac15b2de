import type { Model } from 'mongoose';
import { collectionRequested, collectionTargetRemoved } from '@social/contracts';
import { retryDelay, type Broker } from '@social/events';
import { errorFields, runWithContext } from '@social/logger';
import type { PendingEvent, WithOutbox } from '../data/outbox.fields';
import { outboxLog as log } from '../logger';

interface TargetDoc extends WithOutbox {
  _id: string;
  workspaceId: string;
  net: string;
  networkAccountId: string;
}

export interface OutboxSource {
  kind: 'profile' | 'competitor';
  model: Model<any>;
}

export interface OutboxRelayOptions {
  broker: Broker;
  exchange: string;
  sources: OutboxSource[];
  intervalMs: number;
  /** How long a claimed event is left to the relay that claimed it before another may retry it. */
  leaseMs?: number;
  batchSize?: number;
}

const BACKOFF = { baseMs: 1000, maxMs: 60_000 };

/**
 * Publishes the events recorded on profile and competitor documents (collection jobs, removals)
 * with broker confirms, and clears each only after its confirm. A broker outage, or no queue bound
 * yet, delays jobs (retried with backoff) but never loses them, and an API request never fails
 * because of the broker. Several replicas may run relays: a conditional update claims each event,
 * and a rare double publish carries the same envelope id, which consumers drop.
 */
export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(private readonly opts: OutboxRelayOptions) {}

  start(): void {
    this.schedule(0);
  }

  /** Runs a pass soon (after a write), instead of waiting for the next tick. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.running || this.stopped) return;
    this.again = false;
    this.running = this.pass()
      .then(() => undefined)
      .catch((err) => {
        log.warn('outbox pass failed', errorFields(err));
      })
      .finally(() => {
        this.running = undefined;
      });
    await this.running;
    this.schedule(this.again ? 0 : this.opts.intervalMs);
  }

  /** One pass over every source: publishes what is due; returns how many events went out. */
  async pass(): Promise<number> {
    let published = 0;
    for (const source of this.opts.sources) {
      const docs = await source.model
        .find({ outboxPending: true })
        .limit(this.opts.batchSize ?? 200)
        .lean<TargetDoc[]>();
      const now = Date.now();
      const due = docs.filter((d) => d.outbox && d.outbox.nextAttemptAt.getTime() <= now);
      const results = await Promise.all(due.map((d) => this.relay(source, d, d.outbox!)));
      published += results.filter(Boolean).length;
    }
    return published;
  }

  private async relay(source: OutboxSource, doc: TargetDoc, event: PendingEvent): Promise<boolean> {
    const lease = new Date(Date.now() + (this.opts.leaseMs ?? 30_000));
    const claimed = await source.model.updateOne(
      { _id: doc._id, 'outbox.id': event.id, 'outbox.attempts': event.attempts },
      { $set: { 'outbox.attempts': event.attempts + 1, 'outbox.nextAttemptAt': lease } },
    );
    if (claimed.modifiedCount !== 1) return false; // another relay has it, or it changed meanwhile

    const context = { correlationId: event.correlationId ?? event.id, workspaceId: doc.workspaceId };
    return runWithContext(context, async () => {
      try {
        await this.publish(source, doc, event);
      } catch (err) {
        const attempts = event.attempts + 1;
        const delayMs = Math.max(200, retryDelay(attempts, BACKOFF));
        await source.model
          .updateOne({ _id: doc._id, 'outbox.id': event.id }, { $set: { 'outbox.nextAttemptAt': new Date(Date.now() + delayMs) } })
          .catch(() => undefined); // the lease expires and the event is retried anyway
        const fields = { target: source.kind, targetId: doc._id, eventId: event.id, attempts, retryInMs: delayMs, ...errorFields(err) };
        if (attempts >= 10) log.error('event still not published; retrying', fields);
        else log.warn('event not published yet; retrying', fields);
        return false;
      }
      if (event.kind === 'removed') {
        await source.model.deleteOne({ _id: doc._id, 'outbox.id': event.id });
      } else {
        await source.model.updateOne({ _id: doc._id, 'outbox.id': event.id }, { $set: { outboxPending: false, outbox: null } });
      }
      log.info('event published', { target: source.kind, targetId: doc._id, kind: event.kind, eventId: event.id });
      return true;
    });
  }

  private async publish(source: OutboxSource, doc: TargetDoc, event: PendingEvent): Promise<void> {
    const options = {
      workspaceId: doc.workspaceId,
      id: event.id,
      correlationId: event.correlationId ?? event.id,
      exchange: this.opts.exchange,
      timeoutMs: 5000,
    };
    if (event.kind === 'removed') {
      await this.opts.broker.publish(collectionTargetRemoved, { target: { kind: source.kind, id: doc._id } }, options);
      return;
    }
    await this.opts.broker.publish(
      collectionRequested,
      {
        target: { kind: source.kind, id: doc._id, net: doc.net, networkAccountId: doc.networkAccountId },
        reason: 'backfill',
        since: event.since!,
        until: event.until!,
      },
      options,
    );
  }
}
