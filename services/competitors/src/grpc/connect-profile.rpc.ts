import type { ConnectProfileRequest, GetProfilesResponse, ProfileMessage } from '@social/contracts';
import type { CallContext } from '@social/grpc';
import type { ProfilesUseCases } from '../domain/profiles.use-cases';
import { profileMessage } from './messages';

export const connectProfileRpc =
  (profiles: ProfilesUseCases) =>
  async (req: ConnectProfileRequest, ctx: CallContext): Promise<ProfileMessage> =>
    profileMessage(await profiles.connect(ctx.workspaceId, { net: req.net ?? '', networkAccountId: req.network_account_id ?? '' }));

export const connectSandboxProfilesRpc =
  (profiles: ProfilesUseCases) =>
  async (_req: unknown, ctx: CallContext): Promise<GetProfilesResponse> => ({
    items: (await profiles.connectSandbox(ctx.workspaceId)).map(profileMessage),
  });
