import { randomBytes } from 'node:crypto';
import { WEBHOOK_EVENT_TYPES } from '@social/contracts';
import { FetchRefusedError, precheckUrl, type AddressPolicy } from '@social/url-guard';
import type { Deliveries, Delivery, DeliveryJobs, Endpoint, Endpoints } from './ports';
import { newSecret } from './signature';
import { deliveryNotFound, deliveryPending, endpointLimit, invalidWebhookUrl, rotationConflict, webhookNotFound } from './webhook.errors';

export interface CreateEndpointInput {
  url: string;
  eventTypes: string[];
  description?: string | null;
}

export const createEndpointSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'eventTypes'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048 },
    eventTypes: {
      type: 'array',
      minItems: 1,
      maxItems: WEBHOOK_EVENT_TYPES.length,
      uniqueItems: true,
      items: { enum: WEBHOOK_EVENT_TYPES },
    },
    description: { type: ['string', 'null'], maxLength: 256 },
  },
} as const;

export interface RotateSecretInput {
  graceSeconds?: number;
}

/** Up to 7 days of grace; 0 ends the previous secret at once. */
export const rotateSecretSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    graceSeconds: { type: 'integer', minimum: 0, maximum: 604_800 },
  },
} as const;

export const endpointView = (e: Endpoint) => ({
  id: e.id,
  url: e.url,
  eventTypes: e.eventTypes,
  description: e.description,
  createdAt: e.createdAt.toISOString(),
});

export const deliveryView = (d: Delivery) => ({
  id: d.id,
  eventId: d.eventId,
  eventType: d.eventType,
  status: d.state,
  attempts: d.attempts,
  responseStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  occurredAt: d.occurredAt.toISOString(),
  createdAt: d.createdAt.toISOString(),
  lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
  nextAttemptAt: d.state === 'PENDING' ? (d.nextAttemptAt?.toISOString() ?? null) : null,
  deliveredAt: d.deliveredAt?.toISOString() ?? null,
});

/** Time-ordered, so listing by id is creation order. */
const newEndpointId = (now: Date) => `we_${now.getTime().toString(16).padStart(12, '0')}${randomBytes(6).toString('hex')}`;

export interface EndpointsDeps {
  endpoints: Endpoints;
  deliveries: Deliveries;
  jobs: DeliveryJobs;
  addressPolicy: AddressPolicy;
  maxEndpoints: number;
  /** How long the previous secret keeps signing after a rotation when the request does not say. */
  rotationGraceMs: number;
  /** Told after a rotation, so this process stops signing with a cached old secret at once. */
  onSecretRotated?: (endpointId: string) => void;
  now?: () => Date;
}

export class EndpointsUseCases {
  private readonly now: () => Date;

  constructor(private readonly d: EndpointsDeps) {
    this.now = d.now ?? (() => new Date());
  }

  /** The secret is in this answer only. */
  async create(workspaceId: string, input: CreateEndpointInput) {
    try {
      await precheckUrl(input.url, this.d.addressPolicy);
    } catch (err) {
      if (err instanceof FetchRefusedError) throw invalidWebhookUrl(err.reason);
      throw err;
    }
    if ((await this.d.endpoints.count(workspaceId)) >= this.d.maxEndpoints) throw endpointLimit(this.d.maxEndpoints);
    const endpoint: Endpoint = {
      id: newEndpointId(this.now()),
      workspaceId,
      url: input.url,
      eventTypes: input.eventTypes,
      description: input.description ?? null,
      secret: newSecret(),
      previousSecret: null,
      previousSecretExpiresAt: null,
      createdAt: this.now(),
    };
    await this.d.endpoints.create(endpoint);
    return { ...endpointView(endpoint), secret: endpoint.secret };
  }

  async list(workspaceId: string, page: { skip: number; take: number }) {
    const { items, total } = await this.d.endpoints.list(workspaceId, page);
    return { items: items.map(endpointView), total, skip: page.skip, take: page.take };
  }

  async get(workspaceId: string, id: string) {
    return endpointView(await this.load(workspaceId, id));
  }

  /** Deliveries still pending for it are dropped when their next attempt finds it gone. */
  async delete(workspaceId: string, id: string): Promise<{ success: true }> {
    if (!(await this.d.endpoints.delete(workspaceId, id))) throw webhookNotFound();
    return { success: true };
  }

  /**
   * A new secret, shown in this answer only. For the grace period the previous secret signs too
   * (a second signature in `webhook-signature`), so receivers can switch keys without losing a
   * delivery; a secret replaced before that (two rotations within the grace) stops signing at once.
   */
  async rotateSecret(workspaceId: string, id: string, input: RotateSecretInput) {
    const graceMs = input.graceSeconds !== undefined ? input.graceSeconds * 1000 : this.d.rotationGraceMs;
    for (let tries = 0; tries < 5; tries++) {
      const current = await this.load(workspaceId, id);
      const now = this.now();
      const secret = newSecret();
      const rotated = await this.d.endpoints.replaceSecret(workspaceId, id, current.secret, {
        secret,
        previousSecret: graceMs > 0 ? current.secret : null,
        previousSecretExpiresAt: graceMs > 0 ? new Date(now.getTime() + graceMs) : null,
      });
      // Another rotation came first: rotate what it left.
      if (!rotated) continue;
      this.d.onSecretRotated?.(id);
      return {
        ...endpointView(rotated),
        secret,
        previousSecretExpiresAt: rotated.previousSecretExpiresAt?.toISOString() ?? null,
      };
    }
    throw rotationConflict();
  }

  async deliveries(workspaceId: string, id: string, page: { skip: number; take: number }) {
    await this.load(workspaceId, id);
    const { items, total } = await this.d.deliveries.list(workspaceId, id, page);
    return { items: items.map(deliveryView), total, skip: page.skip, take: page.take };
  }

  /** Sends a delivered or failed delivery again, with the same webhook-id and body, and a new retry window. */
  async replay(workspaceId: string, id: string, deliveryId: string) {
    await this.load(workspaceId, id);
    const reopened = await this.d.deliveries.reopen(workspaceId, id, deliveryId, this.now());
    if (!reopened) {
      if (await this.d.deliveries.get(workspaceId, id, deliveryId)) throw deliveryPending();
      throw deliveryNotFound();
    }
    await this.d.jobs.enqueue(reopened.id, reopened.attempts + 1, workspaceId, { ordered: false });
    return deliveryView(reopened);
  }

  private async load(workspaceId: string, id: string): Promise<Endpoint> {
    const e = await this.d.endpoints.get(workspaceId, id);
    if (!e) throw webhookNotFound();
    return e;
  }
}
