import type { ConnectProfileRequest, GetProfilesResponse, ProfileMessage } from '@social/contracts';
import type { CallContext } from '@social/grpc';
import { connectProfile, connectSandboxProfiles, type ProfilesDeps } from '../domain/profiles.use-cases';
import { profileMessage } from './messages';

export const connectProfileRpc =
  (deps: ProfilesDeps) =>
  async (req: ConnectProfileRequest, ctx: CallContext): Promise<ProfileMessage> =>
    profileMessage(await connectProfile(deps, ctx.workspaceId, { net: req.net ?? '', networkAccountId: req.network_account_id ?? '' }));

export const connectSandboxProfilesRpc =
  (deps: ProfilesDeps) =>
  async (_req: unknown, ctx: CallContext): Promise<GetProfilesResponse> => ({
    items: (await connectSandboxProfiles(deps, ctx.workspaceId)).map(profileMessage),
  });
