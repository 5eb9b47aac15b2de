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

export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'waiting' | 'skipped';

/**
 * One attempt of one delivery. A 2xx answer delivers it; anything else (another status, a
 * timeout, a refused address) schedules the next attempt with a growing delay until the retry
 * window ends, then it FAILED. Post events wait for the earlier events of the same post at the same
 * endpoint: a waiting delivery is queued again by the one before it once that one is settled.
 */
export class DeliverWebhook {
  private readonly endpointCache = new Map<string, { endpoint: Endpoint | null; until: number }>();

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
    const now = d.lastAttemptAt ?? this.now();
    const endpoint = await this.endpoint(d.workspaceId, d.endpointId);
    if (!endpoint) {
      await this.deliveries.settle(
        d.id,
        attempt,
        { state: 'FAILED', lastError: 'the webhook endpoint was deleted', nextAttemptAt: null },
        now,
      );
      await this.releaseNext(d);
      return 'failed';
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
      await this.releaseNext(d);
      return 'delivered';
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
      await this.releaseNext(d);
      return 'failed';
    }
    const nextAttemptAt = new Date(done.getTime() + delay);
    await this.deliveries.settle(d.id, attempt, { lastStatusCode: result.statusCode, lastError: error, nextAttemptAt }, done);
    this.log.info('webhook attempt failed; retrying', { ...fields, error, delayMs: delay });
    await this.jobs.enqueue(d.id, attempt + 1, d.workspaceId, { delayMs: delay, ordered: d.orderKey !== null });
    return 'retry';
  }

  private leaseEnd(): Date {
    return new Date(this.now().getTime() + this.retry.leaseMs);
  }

  /** Claims the attempt unless an earlier delivery of the same post is still pending. */
  private async claimInOrder(deliveryId: string, attempt: number): Promise<Delivery | 'waiting' | null> {
    const d = await this.deliveries.findById(deliveryId);
    if (!d || d.state !== 'PENDING' || d.attempts !== attempt - 1) return null;
    if (d.orderKey) {
      const before = (await this.deliveries.pendingOfKey(d.orderKey)).filter((p) => p.id !== d.id && comesBefore(p, d));
      if (before.length > 0) return 'waiting';
    }
    const now = this.now();
    return (await this.deliveries.claim(d.id, attempt, now, this.leaseEnd())) ? { ...d, attempts: attempt, lastAttemptAt: now } : null;
  }

  /** Queues the next waiting delivery of the same post at the same endpoint, if any. */
  private async releaseNext(d: Delivery): Promise<void> {
    if (!d.orderKey) return;
    const waiting = (await this.deliveries.pendingOfKey(d.orderKey)).filter((p) => p.id !== d.id);
    if (waiting.length === 0) return;
    const next = waiting.reduce((a, b) => (comesBefore(b, a) ? b : a));
    await this.jobs.enqueue(next.id, next.attempts + 1, next.workspaceId, { ordered: true });
  }

  /** Drops the cached endpoint (its secret was rotated), so the next attempt signs with the new secret. */
  forget(endpointId: string): void {
    this.endpointCache.delete(endpointId);
  }

  /**
   * Endpoints are read for every attempt; a short cache spares the database under load. Another
   * process's cache may keep a rotated secret for up to these 2 s (covered by the grace period).
   */
  private async endpoint(workspaceId: string, id: string): Promise<Endpoint | null> {
    const hit = this.endpointCache.get(id);
    if (hit && hit.until > Date.now()) return hit.endpoint;
    const endpoint = await this.endpoints.get(workspaceId, id);
    if (this.endpointCache.size > 10_000) this.endpointCache.clear();
    this.endpointCache.set(id, { endpoint, until: Date.now() + 2000 });
    return endpoint;
  }
}
