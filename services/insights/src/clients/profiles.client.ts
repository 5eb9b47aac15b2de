import type { TokenSigner } from '@social/internal-auth';
import { toAppError } from '@social/errors';
import { createGrpcClient, neighbourFailure, serviceDefinition, type GrpcClient } from '@social/grpc';

interface NetMessage {
  code: string;
  name: string;
}
/** competitors.v1 messages as proto-loader hands them over (snake_case, defaults filled in). */
export interface ProfileMessage {
  id: string;
  name: string;
  username: string;
  picture: string;
  net: NetMessage | null;
  status_level: string;
  network_account_id: string;
  publish_ready: boolean;
}
export interface CompetitorMessage {
  id: string;
  profile_id: string;
  name: string;
  username: string;
  picture: string;
  net: NetMessage | null;
  status_level: string;
  network_account_id: string;
}
export interface PublishCredentialsMessage {
  profile_id: string;
  net: string;
  network_account_id: string;
  access_token: string;
}
export type ProfilesMethods = {
  GetProfiles: [{ ids: string[] }, { items: ProfileMessage[] }];
  GetCompetitor: [{ competitor_id: string }, CompetitorMessage];
  GetPublishCredentials: [{ profile_id: string }, PublishCredentialsMessage];
};

/** A profile or competitor as insights needs it: which network account to read. */
export interface ResolvedTarget {
  id: string;
  net: string;
  networkAccountId: string;
}

export interface ProfileDirectory {
  /** An own profile of the workspace, or null when the workspace has none with that id. */
  getProfile(workspaceId: string, profileId: string): Promise<ResolvedTarget | null>;
  /** A competitor of the workspace, or null. */
  getCompetitor(workspaceId: string, competitorId: string): Promise<ResolvedTarget | null>;
  /** The access token of an own profile (collection reads every served metric with it). */
  getAccessToken(workspaceId: string, profileId: string): Promise<string | null>;
  close(): void;
}

const profilesDefinition = () => serviceDefinition('competitors/v1/competitors.proto', 'competitors.v1.ProfilesService');

export function grpcProfileDirectory(address: string, opts: { signer: TokenSigner; deadlineMs: number }): ProfileDirectory {
  const client: GrpcClient<ProfilesMethods> = createGrpcClient<ProfilesMethods>(profilesDefinition(), address, {
    audience: 'competitors',
    signer: opts.signer,
    defaultDeadlineMs: opts.deadlineMs,
  });
  const isNotFound = (err: unknown) => toAppError(err).status === 404;
  return {
    async getProfile(workspaceId, profileId) {
      let res: { items: ProfileMessage[] };
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
