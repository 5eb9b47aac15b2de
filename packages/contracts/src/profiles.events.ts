import { defineEvent } from '@social/events';

/**
 * Profiles and competitors (owned by the competitors service) and the insights collection jobs
 * they start. The competitors service publishes; the insights service consumes.
 */
export const PROFILES_EXCHANGE = 'social.profiles';

const net = { type: 'string', minLength: 1 } as const;
const id = { type: 'string', minLength: 1 } as const;

export interface CollectionTarget {
  /** 'profile': an own connected profile; 'competitor': a competitor of the workspace. */
  kind: 'profile' | 'competitor';
  /** The profile id (own) or the competitor id, as the public API shows them. */
  id: string;
  net: string;
  /** The account id on the network. */
  networkAccountId: string;
}

const targetSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'id', 'net', 'networkAccountId'],
  properties: { kind: { enum: ['profile', 'competitor'] }, id, net, networkAccountId: id },
} as const;

export interface CollectionRequested {
  target: CollectionTarget;
  /** 'backfill' when a profile is connected or a competitor added; 'refresh' for the schedule. */
  reason: 'backfill' | 'refresh';
  /** Inclusive YYYY-MM-DD range of days to collect. */
  since: string;
  until: string;
}

/** A job: collect daily and post metrics of one target for a range of days (idempotent). */
export const collectionRequested = defineEvent<CollectionRequested>({
  type: 'insights.collection.requested',
  exchange: PROFILES_EXCHANGE,
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['target', 'reason', 'since', 'until'],
    properties: {
      target: targetSchema,
      reason: { enum: ['backfill', 'refresh'] },
      since: { type: 'string', format: 'date' },
      until: { type: 'string', format: 'date' },
    },
  },
});

export interface TargetRemoved {
  target: Pick<CollectionTarget, 'kind' | 'id'>;
}

/** A competitor was removed (or a profile disconnected): stop refreshing it. */
export const collectionTargetRemoved = defineEvent<TargetRemoved>({
  type: 'insights.target.removed',
  exchange: PROFILES_EXCHANGE,
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['target'],
    properties: {
      target: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'id'],
        properties: { kind: { enum: ['profile', 'competitor'] }, id },
      },
    },
  },
});

export interface ProfileAuthRevoked {
  profileId: string;
  net: string;
  reason: string;
}

/** The network refused a profile's token (seen by the publisher): its statusLevel becomes ERROR. */
export const profileAuthRevoked = defineEvent<ProfileAuthRevoked>({
  type: 'profile.auth.revoked',
  exchange: PROFILES_EXCHANGE,
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['profileId', 'net', 'reason'],
    properties: { profileId: id, net, reason: { type: 'string' } },
  },
});
