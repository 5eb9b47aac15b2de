import { createHash } from 'node:crypto';
import type { EventEnvelope } from '@social/events';
import { comesBefore, orderOf } from './order';
import type { Deliveries, Delivery, DeliveryJobs, Endpoint, Endpoints } from './ports';

/** The `webhook-id` of an event at an endpoint: the same for every copy of the event. */
export const deliveryIdOf = (endpointId: string, eventId: string): string =>
  `msg_${createHash('sha256').update(`${endpointId}:${eventId}`).digest('base64url').slice(0, 27)}`;

/** The body an endpoint receives (Standard Webhooks shape: type, timestamp, data). */
export function webhookBody(envelope: EventEnvelope): string {
  return JSON.stringify({
    id: envelope.id,
    type: envelope.type,
    timestamp: envelope.occurredAt,
    workspaceId: envelope.workspaceId,
    data: envelope.payload,
  });
}

/** How long after fanning out a post's event a later one checks whether it is held back. */
const RECENT_ORDER_KEY_MS = 60_000;

/**
 * One event → one delivery per endpoint of its workspace that subscribed to its type, stored first
 * (so nothing accepted is lost) and then queued. A copy of an event already fanned out finds its
 * deliveries stored and queues the pending ones again; attempts are claimed, so that is harmless.
 * Events of one post are fanned out one at a time in arrival order, so the stored order is theirs.
 *
 * A post event's delivery that an earlier pending delivery of the same post and endpoint holds
 * back is stored but not queued: the earlier one queues it when it is settled (it reads the
 * pending deliveries after settling, and this check reads after storing, so one of the two always
 * sees the other; both may, which queues a harmless copy). The check costs a read, so it is made
 * only when this process fanned out an event of the same post and endpoint within the last
 * minute; otherwise the delivery is queued and its attempt checks the order itself.
 */
export class FanOut {
  private readonly perPost = new Map<string, Promise<void>>();
  private readonly recentOrderKeys = new Map<string, number>();
  private readonly cache = new Map<string, { endpoints: Promise<Endpoint[]>; until: number }>();

  constructor(
    private readonly endpoints: Endpoints,
    private readonly deliveries: Deliveries,
    private readonly jobs: DeliveryJobs,
    private readonly now: () => Date = () => new Date(),
  ) {}

  execute(envelope: EventEnvelope): Promise<number> {
    const postId = (envelope.payload as { postId?: unknown }).postId;
    if (typeof postId !== 'string') return this.fanOut(envelope);
    const key = `${envelope.workspaceId}:${postId}`;
    const previous = this.perPost.get(key) ?? Promise.resolve();
    const run = previous.then(() => this.fanOut(envelope));
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.perPost.set(key, settled);
    void settled.then(() => this.perPost.get(key) === settled && this.perPost.delete(key));
    return run;
  }

  /**
   * A workspace's endpoints, read at most every 2 s under load: an endpoint created just now may
   * miss the events of its first two seconds (a deleted one is caught when the delivery is tried).
   */
  private endpointsOf(ws: string): Promise<Endpoint[]> {
    const hit = this.cache.get(ws);
    if (hit && hit.until > Date.now()) return hit.endpoints;
    const endpoints = this.endpoints.ofWorkspace(ws);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(ws, { endpoints, until: Date.now() + 2000 });
    endpoints.catch(() => this.cache.delete(ws));
    return endpoints;
  }

  /** Whether an earlier pending delivery of the same post and endpoint will queue this one. */
  private async heldBack(d: Delivery, orderKey: string): Promise<boolean> {
    const now = Date.now();
    const seen = this.recentOrderKeys.get(orderKey);
    if (this.recentOrderKeys.size > 10_000) this.recentOrderKeys.clear();
    this.recentOrderKeys.set(orderKey, now);
    if (seen === undefined || now - seen > RECENT_ORDER_KEY_MS) return false;
    return (await this.deliveries.pendingOfKey(orderKey)).some((p) => p.id !== d.id && comesBefore(p, d));
  }

  private async fanOut(envelope: EventEnvelope): Promise<number> {
    const ws = envelope.workspaceId;
    if (!ws) return 0;
    const targets = (await this.endpointsOf(ws)).filter((e) => e.eventTypes.includes(envelope.type));
    if (targets.length === 0) return 0;
    const body = webhookBody(envelope);
    const now = this.now();
    await Promise.all(
      targets.map(async (endpoint) => {
        const delivery: Delivery = {
          id: deliveryIdOf(endpoint.id, envelope.id),
          workspaceId: ws,
          endpointId: endpoint.id,
          eventId: envelope.id,
          eventType: envelope.type,
          body,
          occurredAt: new Date(envelope.occurredAt),
          ...orderOf(endpoint.id, envelope.type, envelope.payload as Record<string, unknown>),
          state: 'PENDING',
          attempts: 0,
          lastStatusCode: null,
          lastError: null,
          lastAttemptAt: null,
          nextAttemptAt: now,
          deliveredAt: null,
          windowStart: now,
          createdAt: now,
          updatedAt: now,
        };
        const stored = await this.deliveries.insertOnce(delivery);
        if (stored.state !== 'PENDING') return;
        if (stored.orderKey !== null && (await this.heldBack(stored, stored.orderKey))) return;
        await this.jobs.enqueue(stored.id, stored.attempts + 1, ws, { ordered: stored.orderKey !== null });
      }),
    );
    return targets.length;
  }
}
