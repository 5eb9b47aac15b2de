import { createGrpcClient, serviceDefinition, type GrpcClient, type GrpcClientOptions } from '@social/grpc';

/**
 * The posts service's gRPC API (proto/posts/v1/posts.proto) as TypeScript types, for the server and
 * its callers (publisher, media, insights). Field names are the proto's (snake_case), as the proto
 * loader keeps them; absent scalars arrive as their defaults.
 */
export const POSTS_PROTO = 'posts/v1/posts.proto';
export const POSTS_SERVICE = 'posts.v1.PostsService';

export interface GetPostForPublishingRequest {
  post_id: string;
  profile_id: string;
  revision: number;
}
export interface CaptionMessage {
  plain_text: string;
  first_comment: string;
}
export interface LinkMessage {
  link: string;
  link_title: string;
  link_description: string;
  media_lib_id: string;
}
export interface PostForPublishing {
  post_id: string;
  profile_id: string;
  revision: number;
  type: string;
  stage: string;
  net: string;
  /** null when the post has no caption for the profile's network. */
  caption: CaptionMessage | null;
  media_lib_ids: string[];
  links: LinkMessage[];
  settings_json: string;
  publish_status: string;
}
export interface CountMediaUsageRequest {
  media_id: string;
}
export interface CountMediaUsageResponse {
  total: number;
  scheduled: number;
}
export interface FindPublishedByLabelsRequest {
  label_ids: string[];
  profile_id: string;
}
export interface PublishedPostMessage {
  post_id: string;
  profile_id: string;
  network_post_id: string;
  label_ids: string[];
}
export interface FindPublishedByLabelsResponse {
  items: PublishedPostMessage[];
}

export type PostsServiceMethods = {
  GetPostForPublishing: [GetPostForPublishingRequest, PostForPublishing];
  CountMediaUsage: [CountMediaUsageRequest, CountMediaUsageResponse];
  FindPublishedByLabels: [FindPublishedByLabelsRequest, FindPublishedByLabelsResponse];
};

export const postsServiceDefinition = (): ReturnType<typeof serviceDefinition> => serviceDefinition(POSTS_PROTO, POSTS_SERVICE);

/** A client of the posts service; its tokens are addressed to `posts`. */
export function createPostsClient(address: string, options: Omit<GrpcClientOptions, 'audience'>): GrpcClient<PostsServiceMethods> {
  return createGrpcClient<PostsServiceMethods>(postsServiceDefinition(), address, { ...options, audience: 'posts' });
}
