import { COMPETITORS_PROTO, PROFILES_SERVICE, type ProfilesServiceMethods } from '@social/contracts';
import { GrpcServer, serviceDefinition, type ServiceHandlers } from '@social/grpc';
import type { CompetitorsDeps } from '../domain/competitors.use-cases';
import type { ProfilesDeps } from '../domain/profiles.use-cases';
import { connectProfileRpc, connectSandboxProfilesRpc } from './connect-profile.rpc';
import { getCompetitorRpc } from './get-competitor.rpc';
import { getProfilesRpc } from './get-profiles.rpc';
import { getPublishCredentialsRpc } from './get-publish-credentials.rpc';

export function createGrpcServer(opts: { internalJwtSecret: string; profiles: ProfilesDeps; competitors: CompetitorsDeps }): GrpcServer {
  const handlers: ServiceHandlers<ProfilesServiceMethods> = {
    GetProfiles: getProfilesRpc(opts.profiles.profiles),
    GetPublishCredentials: getPublishCredentialsRpc(opts.profiles.profiles, opts.profiles.cipher),
    GetCompetitor: getCompetitorRpc(opts.competitors),
    ConnectProfile: connectProfileRpc(opts.profiles),
    ConnectSandboxProfiles: connectSandboxProfilesRpc(opts.profiles),
  };
  return new GrpcServer({ serviceName: 'competitors', audience: 'competitors', internalJwtSecret: opts.internalJwtSecret }).addService(
    serviceDefinition(COMPETITORS_PROTO, PROFILES_SERVICE),
    handlers,
  );
}
