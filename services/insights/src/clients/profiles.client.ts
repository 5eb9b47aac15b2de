import { createProfilesClient, type GetProfilesResponse } from '@social/contracts';
import type { TokenSigner } from '@social/internal-auth';
import type { ProfileDirectory } from '../domain/ports';
import { toAppError } from '@social/errors';
import { neighbourFailure } from '@social/grpc';

export function grpcProfileDirectory(address: string, opts: { signer: TokenSigner; deadlineMs: number }): ProfileDirectory {
  const client = createProfilesClient(address, {
    signer: opts.signer,
    defaultDeadlineMs: opts.deadlineMs,
  });
  const isNotFound = (err: unknown) => toAppError(err).status === 404;
  return {
    async getProfile(workspaceId, profileId) {
      let res: GetProfilesResponse;
      try {
        res = await client.call('GetProfiles', { ids: [profileId] }, { workspaceId });
      } catch (err) {
        throw neighbourFailure('competitors', 'GetProfiles', err);
      }
      const p = res.items.find((i) => i.id === profileId);
      return p && p.net?.code ? { id: p.id, net: p.net.code, networkAccountId: p.network_account_id } : null;
    },
    async getCompetitor(workspaceId, competitorId) {
      try {
        const c = await client.call('GetCompetitor', { competitor_id: competitorId }, { workspaceId });
        return c.id && c.net?.code ? { id: c.id, net: c.net.code, networkAccountId: c.network_account_id } : null;
      } catch (err) {
        if (isNotFound(err)) return null;
        throw neighbourFailure('competitors', 'GetCompetitor', err);
      }
    },
    async getAccessToken(workspaceId, profileId) {
      try {
        const c = await client.call('GetPublishCredentials', { profile_id: profileId }, { workspaceId });
        return c.access_token || null;
      } catch (err) {
        if (isNotFound(err)) return null;
        throw neighbourFailure('competitors', 'GetPublishCredentials', err);
      }
    },
    close: () => client.close(),
  };
}
