import type { GetPublishCredentialsRequest, PublishCredentialsMessage } from '@social/contracts';
import type { CallContext } from '@social/grpc';
import type { ProfileRepository } from '../data/profile.repository';
import { profileNotFound, profileNotPublishReady } from '../domain/competitors.errors';
import type { AtRestCipher } from '@social/at-rest';

/** The publisher's credentials for one profile: NOT_FOUND outside the workspace, FAILED_PRECONDITION in ERROR. */
export const getPublishCredentialsRpc =
  (profiles: ProfileRepository, cipher: AtRestCipher) =>
  async (req: GetPublishCredentialsRequest, ctx: CallContext): Promise<PublishCredentialsMessage> => {
    const profile = req.profile_id ? await profiles.findById(ctx.workspaceId, req.profile_id) : null;
    if (!profile) throw profileNotFound();
    if (profile.statusLevel !== 'OK') throw profileNotPublishReady();
    const encrypted = await profiles.encryptedTokenOf(ctx.workspaceId, profile.id);
    if (!encrypted) throw profileNotFound();
    return {
      profile_id: profile.id,
      net: profile.net,
      network_account_id: profile.networkAccountId,
      access_token: cipher.decrypt(encrypted),
    };
  };
