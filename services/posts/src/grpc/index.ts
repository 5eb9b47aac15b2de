import { GrpcServer, serviceDefinition } from '@social/grpc';
import type { PostRepository } from '../data/post.repository';
import { countMediaUsage } from './count-media-usage';
import { findPublishedByLabels } from './find-published-by-labels';
import { getPostForPublishing } from './get-post-for-publishing';
import type { PostsMethods } from './types';

export type { PostsMethods } from './types';
const postsDefinition = () => serviceDefinition('posts/v1/posts.proto', 'posts.v1.PostsService');

export function postsGrpcServer(posts: PostRepository, internalJwtSecret: string): GrpcServer {
  return new GrpcServer({ serviceName: 'posts', audience: 'posts', internalJwtSecret }).addService<PostsMethods>(postsDefinition(), {
    GetPostForPublishing: getPostForPublishing(posts),
    CountMediaUsage: countMediaUsage(posts),
    FindPublishedByLabels: findPublishedByLabels(posts),
  });
}
