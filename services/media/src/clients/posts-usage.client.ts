import { createGrpcClient, serviceDefinition, type GrpcClient } from '@social/grpc';
import type { MediaUsage } from '../domain/ports';

type PostsMethods = {
  CountMediaUsage: [{ media_id: string }, { total: number; scheduled: number }];
};

/** Asks the posts service how many posts (and scheduled ones) use a media. */
export class PostsUsageClient implements MediaUsage {
  private readonly client: GrpcClient<PostsMethods>;

  constructor(address: string, internalJwtSecret: string) {
    this.client = createGrpcClient<PostsMethods>(serviceDefinition('posts/v1/posts.proto', 'posts.v1.PostsService'), address, {
      audience: 'posts',
      issuer: 'media',
      internalJwtSecret,
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
