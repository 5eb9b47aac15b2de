import type { TokenSigner } from '@social/internal-auth';
import { createGrpcClient, serviceDefinition } from '@social/grpc';
import type { PostContent, PostSource } from '../domain/ports';

interface PostForPublishingMessage {
  post_id: string;
  profile_id: string;
  revision: number;
  type: string;
  stage: string;
  net: string;
  caption: { plain_text: string; first_comment: string } | null;
  media_lib_ids: string[];
  links: { link: string; link_title: string; link_description: string; media_lib_id: string }[];
  settings_json: string;
  publish_status: string;
}

export type PostsMethods = {
  GetPostForPublishing: [{ post_id: string; profile_id: string; revision: number }, PostForPublishingMessage];
};

const postsDefinition = () => serviceDefinition('posts/v1/posts.proto', 'posts.v1.PostsService');

const orNull = (s: string | undefined) => (s ? s : null);

export function decodePost(m: PostForPublishingMessage): PostContent {
  const settings = m.settings_json ? (JSON.parse(m.settings_json) as Record<string, unknown>) : null;
  return {
    postId: m.post_id,
    profileId: m.profile_id,
    revision: m.revision,
    type: m.type,
    stage: m.stage,
    net: m.net,
    caption: orNull(m.caption?.plain_text),
    firstComment: orNull(m.caption?.first_comment),
    mediaLibIds: m.media_lib_ids ?? [],
    links: (m.links ?? []).map((l) => ({
      link: l.link,
      title: orNull(l.link_title),
      description: orNull(l.link_description),
      mediaLibId: orNull(l.media_lib_id),
    })),
    settings: settings && Object.keys(settings).length > 0 ? settings : null,
    publishStatus: m.publish_status,
  };
}

export function grpcPostSource(address: string, opts: { signer: TokenSigner; deadlineMs: number }): PostSource & { close(): void } {
  const client = createGrpcClient<PostsMethods>(postsDefinition(), address, {
    audience: 'posts',
    signer: opts.signer,
    defaultDeadlineMs: opts.deadlineMs,
  });
  return {
    async get(workspaceId, job) {
      const m = await client.call(
        'GetPostForPublishing',
        { post_id: job.postId, profile_id: job.profileId, revision: job.revision },
        { workspaceId },
      );
      return decodePost(m);
    },
    close: () => client.close(),
  };
}
