import { AppError, ErrorCodes } from '@social/errors';
import type { UnaryHandler } from '@social/grpc';
import type { PostRepository } from '../data/post.repository';
import { contentForNetwork } from '../domain/posts/publishing-content';
import type { GetPostForPublishingRequest, PostForPublishing } from '@social/contracts';

export const getPostForPublishing =
  (posts: PostRepository): UnaryHandler<GetPostForPublishingRequest, PostForPublishing> =>
  async (req, ctx) => {
    const post = await posts.get(ctx.workspaceId, req.post_id);
    const net = post?.profileNets[req.profile_id];
    if (!post || !net || !post.profileIds.includes(req.profile_id)) {
      throw new AppError(ErrorCodes.NOT_FOUND, 404, `Post ${req.post_id} does not target profile ${req.profile_id}.`);
    }
    const c = contentForNetwork(post, net);
    return {
      post_id: post.id,
      profile_id: req.profile_id,
      revision: post.revision,
      type: post.type,
      stage: post.stage,
      net,
      caption: { plain_text: c.caption?.plainText ?? '', first_comment: c.caption?.firstComment?.plainText ?? '' },
      media_lib_ids: c.mediaLibIds,
      links: c.links.map((l) => ({
        link: l.link,
        link_title: l.linkTitle ?? '',
        link_description: l.linkDescription ?? '',
        media_lib_id: l.mediaLibId ?? '',
      })),
      settings_json: JSON.stringify(c.settings),
      publish_status: post.plan.find((e) => e.profileId === req.profile_id)?.status ?? '',
    };
  };
