import { profileAuthRevoked } from '@social/contracts';
import type { EventEnvelope } from '@social/events';
import type { ProfileAuthRevoked } from '@social/contracts';
import type { ProfileRepository } from '../data/profile.repository';
import { log } from '../logger';

/**
 * The publisher saw the network refuse a profile's token: the profile's statusLevel becomes ERROR
 * until it is reconnected. Setting a status is idempotent, so redeliveries need no bookkeeping.
 */
export const profileAuthRevokedHandler = (profiles: ProfileRepository) => async (env: EventEnvelope<ProfileAuthRevoked>) => {
  const found = await profiles.setStatus(env.workspaceId ?? undefined, env.payload.profileId, 'ERROR', env.payload.reason);
  if (found)
    log.warn('profile token refused by the network; statusLevel ERROR', { profileId: env.payload.profileId, net: env.payload.net });
  else log.info('auth revocation for an unknown profile ignored', { profileId: env.payload.profileId });
};

export const profileAuthRevokedEvents = [profileAuthRevoked];
