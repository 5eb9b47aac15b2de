import type { TokenSigner } from '@social/internal-auth';
import { createGrpcClient, serviceDefinition, type GrpcClient } from '@social/grpc';
import type { MediaUsage } from '../domain/ports';

type PostsMethods = {
  CountMediaUsage: [{ media_id: string }, { total: number; scheduled: number }];
};

/** Asks the posts service how many posts (and scheduled ones) use a media. */
export class PostsUsageClient implements MediaUsage {
  private readonly client: GrpcClient<PostsMethods>;

  constructor(address: string, signer: TokenSigner) {
    this.client = createGrpcClient<PostsMethods>(serviceDefinition('posts/v1/posts.proto', 'posts.v1.PostsService'), address, {
      audience: 'posts',
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
