import { postsServiceDefinition, type PostsServiceMethods } from '@social/contracts';
import { GrpcServer } from '@social/grpc';
import type { TokenVerifier } from '@social/internal-auth';
import type { PostRepository } from '../data/post.repository';
import { countMediaUsage } from './count-media-usage';
import { findPublishedByLabels } from './find-published-by-labels';
import { getPostForPublishing } from './get-post-for-publishing';

/** Who may call what (docs/internal-auth.md): each RPC names the services whose work needs it. */
export const POSTS_RPC_CALLERS = {
  GetPostForPublishing: ['publisher'],
  CountMediaUsage: ['media'],
  FindPublishedByLabels: ['insights'],
} as const;

export function postsGrpcServer(posts: PostRepository, verifier: TokenVerifier): GrpcServer {
  return new GrpcServer({ serviceName: 'posts', verifier }).addService<PostsServiceMethods>(
    postsServiceDefinition(),
    {
      GetPostForPublishing: getPostForPublishing(posts),
      CountMediaUsage: countMediaUsage(posts),
      FindPublishedByLabels: findPublishedByLabels(posts),
    },
    POSTS_RPC_CALLERS,
  );
}
