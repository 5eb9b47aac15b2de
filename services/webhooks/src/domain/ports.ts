/** What the use cases need of storage and the broker; data/ and consumers/ implement them. */

export interface Endpoint {
  id: string;
  workspaceId: string;
  url: string;
  eventTypes: string[];
  description: string | null;
  secret: string;
  /** The secret before the last rotation, still signing (beside `secret`) until `previousSecretExpiresAt`. */
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
}

export interface Endpoints {
  create(endpoint: Endpoint): Promise<void>;
  list(workspaceId: string, page: { skip: number; take: number }): Promise<{ items: Endpoint[]; total: number }>;
  count(workspaceId: string): Promise<number>;
  get(workspaceId: string, id: string): Promise<Endpoint | null>;
  delete(workspaceId: string, id: string): Promise<boolean>;
  /**
   * Replaces the secret if it is still `expectedSecret` (compare-and-set, so two rotations at once
   * do not lose one), keeping the old one as the previous secret: the updated endpoint, or null.
   */
  replaceSecret(
    workspaceId: string,
    id: string,
    expectedSecret: string,
    next: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null },
  ): Promise<Endpoint | null>;
  /** Every endpoint of the workspace (fan-out). */
  ofWorkspace(workspaceId: string): Promise<Endpoint[]>;
}

export type DeliveryState = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface Delivery {
  id: string;
  workspaceId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  body: string;
  occurredAt: Date;
  orderKey: string | null;
  orderSeq: number;
  state: DeliveryState;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  windowStart: Date;
  createdAt: Date;
  updatedAt: Date;
}

export interface AttemptResult {
  statusCode: number | null;
  error: string | null;
}

export interface Deliveries {
  /** Inserts, or returns the delivery already stored under this id (a redelivered event). */
  insertOnce(d: Delivery): Promise<Delivery>;
  findById(id: string): Promise<Delivery | null>;
  get(workspaceId: string, endpointId: string, id: string): Promise<Delivery | null>;
  list(workspaceId: string, endpointId: string, page: { skip: number; take: number }): Promise<{ items: Delivery[]; total: number }>;
  /** Takes attempt `attempt` (compare-and-set on the attempt count): false when another took it. */
  claim(id: string, attempt: number, now: Date, leaseUntil: Date): Promise<boolean>;
  /** claim() in one round trip for deliveries that wait for nothing: the claimed delivery, or null. */
  claimById(id: string, attempt: number, now: Date, leaseUntil: Date): Promise<Delivery | null>;
  settle(
    id: string,
    attempt: number,
    set: Partial<Pick<Delivery, 'state' | 'lastStatusCode' | 'lastError' | 'nextAttemptAt' | 'deliveredAt'>>,
    now: Date,
  ): Promise<void>;
  pendingOfKey(orderKey: string): Promise<Delivery[]>;
  /**
   * A delivery and, when it is pending and has an order key, the pending deliveries of that key
   * (itself among them), read together where the store can.
   */
  withPendingOfKey(id: string): Promise<{ delivery: Delivery | null; pendingOfKey: Delivery[] }>;
  allPending(): Promise<Delivery[]>;
  /**
   * Deletes up to `limit` deliveries in `state` (DELIVERED or FAILED, never PENDING) last updated
   * before `before`; returns how many went.
   */
  deleteSettledBefore(state: 'DELIVERED' | 'FAILED', before: Date, limit: number): Promise<number>;
  /** Sets a delivery PENDING again (replay); null when it is pending already. */
  reopen(workspaceId: string, endpointId: string, id: string, now: Date): Promise<Delivery | null>;
}

export interface DeliveryJobs {
  /**
   * Attempt `attempt` of a delivery, now or after `delayMs`. `ordered`: whether it may have to wait
   * for an earlier delivery (post events); the others are claimed in one round trip.
   */
  enqueue(deliveryId: string, attempt: number, workspaceId: string, opts?: { delayMs?: number; ordered?: boolean }): Promise<void>;
}
