import { createProfilesClient, type GetProfilesResponse } from '@social/contracts';
import type { TokenSigner } from '@social/internal-auth';
import type { ProfileDirectory } from '../domain/posts/ports';
import { neighbourFailure } from '@social/grpc';

export function grpcProfileDirectory(address: string, opts: { signer: TokenSigner; deadlineMs: number }): ProfileDirectory {
  const client = createProfilesClient(address, {
    signer: opts.signer,
    defaultDeadlineMs: opts.deadlineMs,
  });
  return {
    async getProfiles(workspaceId, ids) {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return new Map();
      let res: GetProfilesResponse;
      try {
        res = await client.call('GetProfiles', { ids: unique }, { workspaceId });
      } catch (err) {
        throw neighbourFailure('competitors', 'GetProfiles', err);
      }
      return new Map(
        res.items.map((p) => [
          p.id,
          {
            id: p.id,
            name: p.name,
            username: p.username,
            picture: p.picture,
            net: p.net && p.net.code ? { code: p.net.code, name: p.net.name } : null,
            publishReady: p.publish_ready,
            statusLevel: p.status_level,
          },
        ]),
      );
    },
    close: () => client.close(),
  };
}
