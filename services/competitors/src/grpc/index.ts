import { profilesServiceDefinition, type ProfilesServiceMethods } from '@social/contracts';
import { GrpcServer, type ServiceHandlers } from '@social/grpc';
import type { TokenVerifier } from '@social/internal-auth';
import type { ProfileRepository } from '../data/profile.repository';
import type { CompetitorsUseCases } from '../domain/competitors.use-cases';
import type { ProfilesUseCases } from '../domain/profiles.use-cases';
import type { AtRestCipher } from '@social/at-rest';
import { connectProfileRpc, connectSandboxProfilesRpc } from './connect-profile.rpc';
import { getCompetitorRpc } from './get-competitor.rpc';
import { getProfilesRpc } from './get-profiles.rpc';
import { getPublishCredentialsRpc } from './get-publish-credentials.rpc';

/**
 * Who may call what (docs/internal-auth.md). Decrypted network tokens go only to the workers that
 * act on the network with them; connecting profiles is the admin command line's (gateway key).
 */
export const COMPETITORS_RPC_CALLERS = {
  GetProfiles: ['posts', 'insights'],
  GetPublishCredentials: ['publisher', 'insights'],
  GetCompetitor: ['insights'],
  ConnectProfile: ['gateway'],
  ConnectSandboxProfiles: ['gateway'],
} as const;

export interface CompetitorsGrpcDeps {
  verifier: TokenVerifier;
  profiles: ProfilesUseCases;
  competitors: CompetitorsUseCases;
  /** Reads that are no use case of their own (a lookup by ids, the credentials for the publisher). */
  profileStore: ProfileRepository;
  cipher: AtRestCipher;
}

export function createGrpcServer(opts: CompetitorsGrpcDeps): GrpcServer {
  const handlers: ServiceHandlers<ProfilesServiceMethods> = {
    GetProfiles: getProfilesRpc(opts.profileStore),
    GetPublishCredentials: getPublishCredentialsRpc(opts.profileStore, opts.cipher),
    GetCompetitor: getCompetitorRpc(opts.competitors),
    ConnectProfile: connectProfileRpc(opts.profiles),
    ConnectSandboxProfiles: connectSandboxProfilesRpc(opts.profiles),
  };
  return new GrpcServer({ serviceName: 'competitors', verifier: opts.verifier }).addService(
    profilesServiceDefinition(),
    handlers,
    COMPETITORS_RPC_CALLERS,
  );
}
