import { createPostsClient, type PostsServiceMethods } from '@social/contracts';
import type { TokenSigner } from '@social/internal-auth';
import type { GrpcClient } from '@social/grpc';
import type { MediaUsage } from '../domain/ports';

/** Asks the posts service how many posts (and scheduled ones) use a media. */
export class PostsUsageClient implements MediaUsage {
  private readonly client: GrpcClient<PostsServiceMethods>;

  constructor(address: string, signer: TokenSigner) {
    this.client = createPostsClient(address, {
      signer,
      defaultDeadlineMs: 3000,
    });
  }

  async count(workspaceId: string, mediaId: string) {
    const res = await this.client.call('CountMediaUsage', { media_id: mediaId }, { workspaceId });
    return { total: res.total, scheduled: res.scheduled };
  }

  close(): void {
    this.client.close();
  }
}
