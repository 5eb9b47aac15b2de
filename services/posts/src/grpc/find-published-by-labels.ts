import type { UnaryHandler } from '@social/grpc';
import type { PostRepository } from '../data/post.repository';
import type { FindPublishedByLabelsRequest, FindPublishedByLabelsResponse } from '@social/contracts';

/** One item per (post, profile) that published, for posts carrying any of the labels. */
export const findPublishedByLabels =
  (posts: PostRepository): UnaryHandler<FindPublishedByLabelsRequest, FindPublishedByLabelsResponse> =>
  async (req, ctx) => {
    const found = await posts.findWithAnyLabel(ctx.workspaceId, [...new Set(req.label_ids)]);
    return {
      items: found.flatMap((p) =>
        p.plan
          .filter((e) => e.status === 'PUBLISHED' && (!req.profile_id || e.profileId === req.profile_id))
          .map((e) => ({ post_id: p.id, profile_id: e.profileId, network_post_id: e.networkPostId ?? '', label_ids: p.labelIds })),
      ),
    };
  };
