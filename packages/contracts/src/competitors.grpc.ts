import { createGrpcClient, serviceDefinition, type GrpcClient, type GrpcClientOptions } from '@social/grpc';

/**
 * The competitors service's gRPC API (proto/competitors/v1/competitors.proto) as TypeScript types,
 * for the server and its callers (posts, publisher, insights, the admin command line):
 * `createProfilesClient(address, { signer })`.
 * Field names are the proto's (snake_case), as the proto loader keeps them.
 */
export const COMPETITORS_PROTO = 'competitors/v1/competitors.proto';
export const PROFILES_SERVICE = 'competitors.v1.ProfilesService';

export interface NetMessage {
  code: string;
  name: string;
}

export interface ProfileMessage {
  id: string;
  name: string;
  username: string;
  picture: string;
  net: NetMessage;
  /** OK or ERROR. */
  status_level: string;
  network_account_id: string;
  /** Connected and its token accepted by the network (statusLevel OK). */
  publish_ready: boolean;
}

export interface GetProfilesRequest {
  ids: string[];
}
export interface GetProfilesResponse {
  items: ProfileMessage[];
}
export interface GetPublishCredentialsRequest {
  profile_id: string;
}
export interface PublishCredentialsMessage {
  profile_id: string;
  net: string;
  network_account_id: string;
  /** Secret: never log it. */
  access_token: string;
}
export interface GetCompetitorRequest {
  competitor_id: string;
}
export interface CompetitorMessage {
  id: string;
  profile_id: string;
  name: string;
  username: string;
  picture: string;
  net: NetMessage;
  /** ACTIVE or NOT_AVAILABLE. */
  status_level: string;
  network_account_id: string;
}
export interface ConnectProfileRequest {
  net: string;
  network_account_id: string;
}

export type ProfilesServiceMethods = {
  GetProfiles: [GetProfilesRequest, GetProfilesResponse];
  GetPublishCredentials: [GetPublishCredentialsRequest, PublishCredentialsMessage];
  GetCompetitor: [GetCompetitorRequest, CompetitorMessage];
  ConnectProfile: [ConnectProfileRequest, ProfileMessage];
  ConnectSandboxProfiles: [Record<string, never>, GetProfilesResponse];
};

export const profilesServiceDefinition = (): ReturnType<typeof serviceDefinition> => serviceDefinition(COMPETITORS_PROTO, PROFILES_SERVICE);

/** A client of the competitors service's profiles API; its tokens are addressed to `competitors`. */
export function createProfilesClient(address: string, options: Omit<GrpcClientOptions, 'audience'>): GrpcClient<ProfilesServiceMethods> {
  return createGrpcClient<ProfilesServiceMethods>(profilesServiceDefinition(), address, { ...options, audience: 'competitors' });
}
