import { createPostsClient, type PostForPublishing } from '@social/contracts';
import type { TokenSigner } from '@social/internal-auth';
import type { PostContent, PostSource } from '../domain/ports';

const orNull = (s: string | undefined) => (s ? s : null);

export function decodePost(m: PostForPublishing): PostContent {
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
    settings: settings ?? {},
    publishStatus: m.publish_status,
  };
}

export function grpcPostSource(address: string, opts: { signer: TokenSigner; deadlineMs: number }): PostSource & { close(): void } {
  const client = createPostsClient(address, {
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
