// posts.v1 messages as proto-loader hands them over (keepCase: snake_case fields, defaults filled in).

export interface GetPostForPublishingRequest {
  post_id: string;
  profile_id: string;
  revision: number;
}
export interface PostForPublishing {
  post_id: string;
  profile_id: string;
  revision: number;
  type: string;
  stage: string;
  net: string;
  caption: { plain_text: string; first_comment: string };
  media_lib_ids: string[];
  links: { link: string; link_title: string; link_description: string; media_lib_id: string }[];
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
export interface FindPublishedByLabelsResponse {
  items: { post_id: string; profile_id: string; network_post_id: string; label_ids: string[] }[];
}

export type PostsMethods = {
  GetPostForPublishing: [GetPostForPublishingRequest, PostForPublishing];
  CountMediaUsage: [CountMediaUsageRequest, CountMediaUsageResponse];
  FindPublishedByLabels: [FindPublishedByLabelsRequest, FindPublishedByLabelsResponse];
};
