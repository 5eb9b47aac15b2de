import { loadConfig, type VarSpec } from '@social/config';
import { createProfilesClient, PROFILES_SERVICE, type ProfileMessage, type ProfilesServiceMethods } from '@social/contracts';
import type { TokenSigner } from '@social/internal-auth';
import { checkHealth, type GrpcClient } from '@social/grpc';
import type { CommandDeps, ConnectedProfile } from './commands';

export const adminSpec = {
  competitorsGrpcUrl: { env: 'COMPETITORS_GRPC_URL', type: 'string', minLength: 1, default: '127.0.0.1:9083' },
} as const satisfies Record<string, VarSpec>;

const toProfile = (p: ProfileMessage): ConnectedProfile => ({
  id: p.id,
  name: p.name,
  username: p.username,
  picture: p.picture,
  net: { code: p.net.code, name: p.net.name },
  statusLevel: p.status_level,
});

/**
 * The admin command line's way to the competitors service: gRPC with an internal token for the
 * workspace concerned, signed with the gateway's key (the command line is part of the gateway; the
 * competitors service lets only `gateway` connect profiles). The channel opens on first use.
 */
export function competitorsCommands(env: NodeJS.ProcessEnv, signer: TokenSigner) {
  const { competitorsGrpcUrl } = loadConfig(adminSpec, env);
  let client: GrpcClient<ProfilesServiceMethods> | undefined;
  const grpc = () =>
    (client ??= createProfilesClient(competitorsGrpcUrl, {
      signer,
      // Connecting asks the network for a token and checks it, for up to nine networks.
      defaultDeadlineMs: 60_000,
    }));

  const deps: Required<Pick<CommandDeps, 'connectProfile' | 'connectSandboxProfiles' | 'checkCompetitors'>> = {
    async checkCompetitors() {
      const status = await checkHealth(competitorsGrpcUrl, PROFILES_SERVICE, { timeoutMs: 3000 }).catch((err: Error) => err.message);
      if (status !== 'SERVING') {
        throw new Error(`the competitors service at ${competitorsGrpcUrl} (COMPETITORS_GRPC_URL) is not serving: ${status}`);
      }
    },
    async connectProfile(workspaceId, net, accountId) {
      return toProfile(await grpc().call('ConnectProfile', { net, network_account_id: accountId }, { workspaceId }));
    },
    async connectSandboxProfiles(workspaceId) {
      return (await grpc().call('ConnectSandboxProfiles', {}, { workspaceId })).items.map(toProfile);
    },
  };
  return { ...deps, close: () => client?.close() };
}
