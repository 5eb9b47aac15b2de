import { collectionRequested, collectionTargetRemoved } from '@social/contracts';
import { inStoredTrace, retryDelay, type Broker } from '@social/events';
import { errorFields, runWithContext } from '@social/logger';
import type { OutboxDoc } from '../data/outbox.model';
import type { OutboxRepository } from '../data/outbox.repository';
import { outboxLog as log } from '../logger';

export interface OutboxRelayOptions {
  broker: Broker;
  exchange: string;
  outbox: OutboxRepository;
  /** Whether the profile or competitor an event is about exists now. */
  targetExists: (kind: OutboxDoc['targetKind'], id: string) => Promise<boolean>;
  intervalMs: number;
  /** How long a claimed event is left to the relay that claimed it before it is tried again. */
  leaseMs?: number;
  batchSize?: number;
  /**
   * An event is recorded just before the write it is about. Until this age, a target in the wrong
   * state means "that write is still under way"; after it, "that write never happened" (a crash or
   * a failed request), and the event is dropped.
   */
  settleMs?: number;
}

const BACKOFF = { baseMs: 1000, maxMs: 60_000 };
const NOT_SETTLED_RETRY_MS = 500;

/**
 * Publishes recorded events (collection jobs, removals) with broker confirms and deletes each only
 * after its confirm. A broker outage, or no queue bound yet, delays jobs (retried with backoff) but
 * never loses them, and an API request never fails because of the broker. Events are published at
 * least once; the envelope id is the outbox id, so consumers drop duplicates.
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

  /** One pass: publishes what is due; returns how many events went out. */
  async pass(): Promise<number> {
    const due = await this.opts.outbox.due(this.opts.batchSize ?? 200);
    const results = await Promise.all(due.map((event) => this.relay(event)));
    return results.filter(Boolean).length;
  }

  private async relay(event: OutboxDoc): Promise<boolean> {
    if (!(await this.opts.outbox.claim(event, this.opts.leaseMs ?? 30_000))) return false;
    const context = { correlationId: event.correlationId ?? event._id, workspaceId: event.workspaceId };
    const attributes = { 'outbox.event.kind': event.kind, 'request.id': context.correlationId };
    return runWithContext(context, () =>
      inStoredTrace(event.traceparent, 'competitors outbox relay', attributes, async () => {
        const fields = { eventId: event._id, kind: event.kind, target: event.targetKind, targetId: event.targetId };
        try {
          const exists = await this.opts.targetExists(event.targetKind, event.targetId);
          // A job needs its target; a removal needs its target gone.
          if (exists !== (event.kind === 'backfill')) {
            if (Date.now() - event.createdAt.getTime() > (this.opts.settleMs ?? 30_000)) {
              await this.opts.outbox.remove(event._id);
              log.info('event dropped: the change it was recorded for did not happen', fields);
            } else {
              await this.opts.outbox.retryAt(event._id, new Date(Date.now() + NOT_SETTLED_RETRY_MS));
            }
            return false;
          }
          await this.publish(event);
        } catch (err) {
          const attempts = event.attempts + 1;
          const delayMs = Math.max(200, retryDelay(attempts, BACKOFF));
          // When this write fails too, the lease runs out and the event is retried anyway.
          await this.opts.outbox.retryAt(event._id, new Date(Date.now() + delayMs)).catch(() => undefined);
          const more = { ...fields, attempts, retryInMs: delayMs, ...errorFields(err) };
          if (attempts >= 10) log.error('event still not published; retrying', more);
          else log.warn('event not published yet; retrying', more);
          return false;
        }
        await this.opts.outbox.remove(event._id);
        log.info('event published', fields);
        return true;
      }),
    );
  }

  private async publish(event: OutboxDoc): Promise<void> {
    const options = {
      workspaceId: event.workspaceId,
      id: event._id,
      correlationId: event.correlationId ?? event._id,
      exchange: this.opts.exchange,
      timeoutMs: 5000,
    };
    if (event.kind === 'removed') {
      await this.opts.broker.publish(collectionTargetRemoved, { target: { kind: event.targetKind, id: event.targetId } }, options);
      return;
    }
    await this.opts.broker.publish(
      collectionRequested,
      {
        target: { kind: event.targetKind, id: event.targetId, net: event.net, networkAccountId: event.networkAccountId },
        reason: 'backfill',
        since: event.since!,
        until: event.until!,
      },
      options,
    );
  }
}
