import type { TokenSigner } from '@social/internal-auth';
import { createGrpcClient, neighbourFailure, serviceDefinition, type GrpcClient } from '@social/grpc';

/** competitors.v1.Profile as proto-loader hands it over. */
export interface ProfileMessage {
  id: string;
  name: string;
  username: string;
  picture: string;
  net: { code: string; name: string } | null;
  status_level: string;
  network_account_id: string;
  publish_ready: boolean;
}
export type ProfilesMethods = {
  GetProfiles: [{ ids: string[] }, { items: ProfileMessage[] }];
};

export interface ProfileItem {
  id: string;
  name: string;
  username: string;
  picture: string;
  net: { code: string; name: string } | null;
  publishReady: boolean;
  statusLevel: string;
}

/** The workspace's connected own profiles, as far as posts needs them. */
export interface ProfileDirectory {
  /** Own profiles of the workspace by id; ids not in the workspace are absent. */
  getProfiles(workspaceId: string, ids: string[]): Promise<Map<string, ProfileItem>>;
  close(): void;
}

const profilesDefinition = () => serviceDefinition('competitors/v1/competitors.proto', 'competitors.v1.ProfilesService');

export function grpcProfileDirectory(address: string, opts: { signer: TokenSigner; deadlineMs: number }): ProfileDirectory {
  const client: GrpcClient<ProfilesMethods> = createGrpcClient<ProfilesMethods>(profilesDefinition(), address, {
    audience: 'competitors',
    signer: opts.signer,
    defaultDeadlineMs: opts.deadlineMs,
  });
  return {
    async getProfiles(workspaceId, ids) {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return new Map();
      let res: { items: ProfileMessage[] };
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
