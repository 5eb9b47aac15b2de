import type { UnaryHandler } from '@social/grpc';
import type { PostRepository } from '../data/post.repository';
import type { CountMediaUsageRequest, CountMediaUsageResponse } from '@social/contracts';

export const countMediaUsage =
  (posts: PostRepository): UnaryHandler<CountMediaUsageRequest, CountMediaUsageResponse> =>
  async (req, ctx) =>
    posts.countMediaUsage(ctx.workspaceId, req.media_id);
