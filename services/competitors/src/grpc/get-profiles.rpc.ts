import type { GetProfilesRequest, GetProfilesResponse } from '@social/contracts';
import { validationError } from '@social/errors';
import type { CallContext } from '@social/grpc';
import type { ProfileRepository } from '../data/profile.repository';
import { profileMessage } from './messages';

const MAX_IDS = 500;

/** Profiles of the caller's workspace by id; ids of other workspaces or unknown ids are absent. */
export const getProfilesRpc =
  (profiles: ProfileRepository) =>
  async (req: GetProfilesRequest, ctx: CallContext): Promise<GetProfilesResponse> => {
    const ids = [...new Set(req.ids ?? [])];
    if (ids.length > MAX_IDS) throw validationError([{ path: '/ids', message: `at most ${MAX_IDS} ids per call` }]);
    const found = await profiles.findMany(ctx.workspaceId, ids);
    return { items: found.map(profileMessage) };
  };
