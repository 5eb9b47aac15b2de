import { createPostsClient, type FindPublishedByLabelsResponse } from '@social/contracts';
import type { TokenSigner } from '@social/internal-auth';
import type { PublishedPostsDirectory } from '../domain/ports';
import { neighbourFailure } from '@social/grpc';

export function grpcPublishedPosts(address: string, opts: { signer: TokenSigner; deadlineMs: number }): PublishedPostsDirectory {
  const client = createPostsClient(address, {
    signer: opts.signer,
    defaultDeadlineMs: opts.deadlineMs,
  });
  return {
    async networkPostIdsWithLabels(workspaceId, profileId, labelIds) {
      let res: FindPublishedByLabelsResponse;
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
