import { serviceDefinition, type ServerStream } from '@social/grpc';

export const mediaDefinition = serviceDefinition('media/v1/media.proto', 'media.v1.MediaService');

/** Who may call what (docs/internal-auth.md): each RPC names the services whose work needs it. */
export const MEDIA_RPC_CALLERS = {
  BatchGetMedia: ['posts', 'publisher'],
  ReadMediaFile: ['publisher'],
} as const;

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

export interface FileChunk {
  data: Buffer;
  mime_type: string;
  total_bytes: number;
}

export type MediaMethods = {
  BatchGetMedia: [{ ids: string[] }, { items: MediaInfo[] }];
  ReadMediaFile: [{ id: string }, ServerStream<FileChunk>];
};
