import type { Logger } from '@social/logger';
import { comesBefore } from './order';
import type { AttemptResult, Deliveries, Delivery, DeliveryJobs, Endpoint, Endpoints } from './ports';
import { signedHeaders, signingSecrets } from './signature';

/** Sends one signed request; never throws for what the receiver or the network did. */
export interface Sender {
  send(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult>;
}

export interface RetryPolicy {
  /** Waits before the 2nd, 3rd, … attempt; the last repeats. */
  delaysMs: number[];
  windowMs: number;
  /** How long a claimed attempt may take before the sweep may queue the next (> the send timeout). */
  leaseMs: number;
}

/** Deliveries of one post attempted one after another within one job before the next is queued. */
const MAX_CHAINED_ATTEMPTS = 20;

export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'waiting' | 'skipped';

/**
 * One attempt of one delivery. A 2xx answer delivers it; anything else (another status, a
 * timeout, a refused address) schedules the next attempt with a growing delay until the retry
 * window ends, then it FAILED. Post events wait for the earlier events of the same post at the same
 * endpoint: a waiting delivery is queued again by the one before it once that one is settled.
 */
export class DeliverWebhook {
  private readonly endpointCache = new Map<string, { endpoint: Promise<Endpoint | null>; until: number }>();

  constructor(
    private readonly deliveries: Deliveries,
    private readonly endpoints: Endpoints,
    private readonly jobs: DeliveryJobs,
    private readonly sender: Sender,
    private readonly retry: RetryPolicy,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async execute(deliveryId: string, attempt: number, ordered = true): Promise<AttemptOutcome> {
    const d = ordered
      ? await this.claimInOrder(deliveryId, attempt)
      : await this.deliveries.claimById(deliveryId, attempt, this.now(), this.leaseEnd());
    if (d === 'waiting') return 'waiting';
    // Settled, or a copy of an attempt already made (each attempt number is queued once).
    if (!d) return 'skipped';
    const first = await this.attempt(d, attempt, true);
    // The next delivery of the same post, claimed when this one was settled, goes out from here
    // rather than through the queue (the same claim its job would make, one read and two messages
    // fewer); after a few the next one is queued as usual, so one message is not held for long.
    let next = first.next;
    for (let n = 1; next; n++) next = (await this.attempt(next, next.attempts, n + 1 < MAX_CHAINED_ATTEMPTS)).next;
    return first.outcome;
  }

  /**
   * One claimed attempt. `chain`: when it releases the next delivery of its post, claim that one
   * and answer it as `next` (to be attempted by the caller) instead of queueing it.
   */
  private async attempt(d: Delivery, attempt: number, chain: boolean): Promise<{ outcome: AttemptOutcome; next: Delivery | null }> {
    const now = d.lastAttemptAt ?? this.now();
    const endpoint = await this.endpoint(d.workspaceId, d.endpointId);
    if (!endpoint) {
      await this.deliveries.settle(
        d.id,
        attempt,
        { state: 'FAILED', lastError: 'the webhook endpoint was deleted', nextAttemptAt: null },
        now,
      );
      return { outcome: 'failed', next: await this.releaseNext(d, chain) };
    }
    const started = Date.now();
    const result = await this.sender.send(endpoint.url, signedHeaders(signingSecrets(endpoint, now), d.id, d.body, now), d.body);
    const done = this.now();
    const fields = {
      deliveryId: d.id,
      endpointId: d.endpointId,
      eventType: d.eventType,
      attempt,
      statusCode: result.statusCode,
      durationMs: Date.now() - started,
    };
    if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) {
      await this.deliveries.settle(
        d.id,
        attempt,
        { state: 'DELIVERED', lastStatusCode: result.statusCode, lastError: null, nextAttemptAt: null, deliveredAt: done },
        done,
      );
      this.log.info('webhook delivered', fields);
      return { outcome: 'delivered', next: await this.releaseNext(d, chain) };
    }
    const error = result.error ?? `the endpoint answered HTTP ${result.statusCode}`;
    const delay = this.retry.delaysMs[Math.min(attempt - 1, this.retry.delaysMs.length - 1)]!;
    if (done.getTime() + delay - d.windowStart.getTime() > this.retry.windowMs) {
      await this.deliveries.settle(
        d.id,
        attempt,
        { state: 'FAILED', lastStatusCode: result.statusCode, lastError: error, nextAttemptAt: null },
        done,
      );
      this.log.warn('webhook delivery failed for good', { ...fields, error });
      return { outcome: 'failed', next: await this.releaseNext(d, chain) };
    }
    const nextAttemptAt = new Date(done.getTime() + delay);
    await this.deliveries.settle(d.id, attempt, { lastStatusCode: result.statusCode, lastError: error, nextAttemptAt }, done);
    this.log.info('webhook attempt failed; retrying', { ...fields, error, delayMs: delay });
    await this.jobs.enqueue(d.id, attempt + 1, d.workspaceId, { delayMs: delay, ordered: d.orderKey !== null });
    return { outcome: 'retry', next: null };
  }

  private leaseEnd(): Date {
    return new Date(this.now().getTime() + this.retry.leaseMs);
  }

  /** Claims the attempt unless an earlier delivery of the same post is still pending. */
  private async claimInOrder(deliveryId: string, attempt: number): Promise<Delivery | 'waiting' | null> {
    const { delivery: d, pendingOfKey } = await this.deliveries.withPendingOfKey(deliveryId);
    if (!d || d.state !== 'PENDING' || d.attempts !== attempt - 1) return null;
    if (d.orderKey && pendingOfKey.some((p) => p.id !== d.id && comesBefore(p, d))) return 'waiting';
    const now = this.now();
    return (await this.deliveries.claim(d.id, attempt, now, this.leaseEnd())) ? { ...d, attempts: attempt, lastAttemptAt: now } : null;
  }

  /**
   * Queues the next waiting delivery of the same post at the same endpoint, if any; with `claim`,
   * claims its next attempt instead and answers it (null when there is none, or another took it).
   */
  private async releaseNext(d: Delivery, claim: boolean): Promise<Delivery | null> {
    if (!d.orderKey) return null;
    const waiting = (await this.deliveries.pendingOfKey(d.orderKey)).filter((p) => p.id !== d.id);
    if (waiting.length === 0) return null;
    const next = waiting.reduce((a, b) => (comesBefore(b, a) ? b : a));
    const attempt = next.attempts + 1;
    if (!claim) {
      await this.jobs.enqueue(next.id, attempt, next.workspaceId, { ordered: true });
      return null;
    }
    const now = this.now();
    return (await this.deliveries.claim(next.id, attempt, now, this.leaseEnd()))
      ? { ...next, attempts: attempt, lastAttemptAt: now }
      : null;
  }

  /** Drops the cached endpoint (its secret was rotated), so the next attempt signs with the new secret. */
  forget(endpointId: string): void {
    this.endpointCache.delete(endpointId);
  }

  /**
   * Endpoints are read for every attempt; a short cache spares the database under load (it holds
   * the read itself, so the attempts that start together share one). Another process's cache may
   * keep a rotated secret for up to these 2 s (covered by the grace period).
   */
  private endpoint(workspaceId: string, id: string): Promise<Endpoint | null> {
    const hit = this.endpointCache.get(id);
    if (hit && hit.until > Date.now()) return hit.endpoint;
    const endpoint = this.endpoints.get(workspaceId, id);
    if (this.endpointCache.size > 10_000) this.endpointCache.clear();
    const entry = { endpoint, until: Date.now() + 2000 };
    this.endpointCache.set(id, entry);
    endpoint.catch(() => this.endpointCache.get(id) === entry && this.endpointCache.delete(id));
    return endpoint;
  }
}
