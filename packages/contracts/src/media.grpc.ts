import { createGrpcClient, serviceDefinition, type GrpcClient, type GrpcClientOptions, type ServerStream } from '@social/grpc';

/**
 * The media service's gRPC API (proto/media/v1/media.proto) as TypeScript types, for the server and
 * its callers (posts, publisher). Field names are the proto's (snake_case), as the proto loader keeps
 * them; absent scalars arrive as their defaults (0, '').
 */
export const MEDIA_PROTO = 'media/v1/media.proto';
export const MEDIA_SERVICE = 'media.v1.MediaService';

export interface BatchGetMediaRequest {
  ids: string[];
}
export interface MediaInfo {
  id: string;
  name: string;
  status: string;
  mime_type: string;
  kind: string;
  width: number;
  height: number;
  duration_seconds: number;
  fps: number;
  file_size_bytes: number;
  url: string;
  preview_url: string;
  destination_type: string;
  error_reason: string;
}
export interface BatchGetMediaResponse {
  items: MediaInfo[];
}
export interface ReadMediaFileRequest {
  id: string;
}
export interface FileChunk {
  data: Buffer;
  mime_type: string;
  total_bytes: number;
}

export type MediaServiceMethods = {
  BatchGetMedia: [BatchGetMediaRequest, BatchGetMediaResponse];
  ReadMediaFile: [ReadMediaFileRequest, ServerStream<FileChunk>];
};

export const mediaServiceDefinition = (): ReturnType<typeof serviceDefinition> => serviceDefinition(MEDIA_PROTO, MEDIA_SERVICE);

/** A client of the media service; its tokens are addressed to `media`. */
export function createMediaClient(address: string, options: Omit<GrpcClientOptions, 'audience'>): GrpcClient<MediaServiceMethods> {
  return createGrpcClient<MediaServiceMethods>(mediaServiceDefinition(), address, { ...options, audience: 'media' });
}
