import type { TokenSigner } from '@social/internal-auth';
import { createGrpcClient, neighbourFailure, serviceDefinition, type GrpcClient } from '@social/grpc';

export interface PublishedPostMessage {
  post_id: string;
  profile_id: string;
  network_post_id: string;
  label_ids: string[];
}
export type PostsMethods = {
  FindPublishedByLabels: [{ label_ids: string[]; profile_id: string }, { items: PublishedPostMessage[] }];
};

/** Posts published through us, as far as the label filter of post insights needs them. */
export interface PublishedPostsDirectory {
  /** Network post ids of the profile's posts that carry any of the labels. */
  networkPostIdsWithLabels(workspaceId: string, profileId: string, labelIds: string[]): Promise<Set<string>>;
  close(): void;
}

const postsDefinition = () => serviceDefinition('posts/v1/posts.proto', 'posts.v1.PostsService');

export function grpcPublishedPosts(address: string, opts: { signer: TokenSigner; deadlineMs: number }): PublishedPostsDirectory {
  const client: GrpcClient<PostsMethods> = createGrpcClient<PostsMethods>(postsDefinition(), address, {
    audience: 'posts',
    signer: opts.signer,
    defaultDeadlineMs: opts.deadlineMs,
  });
  return {
    async networkPostIdsWithLabels(workspaceId, profileId, labelIds) {
      let res: { items: PublishedPostMessage[] };
      try {
        res = await client.call('FindPublishedByLabels', { label_ids: labelIds, profile_id: profileId }, { workspaceId });
      } catch (err) {
        throw neighbourFailure('posts', 'FindPublishedByLabels', err);
      }
      // The profile filter is asked for, and applied again in case the server ignores it.
      return new Set(res.items.filter((i) => i.profile_id === profileId && i.network_post_id).map((i) => i.network_post_id));
    },
    close: () => client.close(),
  };
}
