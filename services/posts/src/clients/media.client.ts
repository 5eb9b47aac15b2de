import type { TokenSigner } from '@social/internal-auth';
import { createGrpcClient, neighbourFailure, serviceDefinition, type GrpcClient } from '@social/grpc';

/** media.v1.MediaInfo as proto-loader hands it over (snake_case, defaults filled in). */
export interface MediaInfoMessage {
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
export type MediaMethods = {
  BatchGetMedia: [{ ids: string[] }, { items: MediaInfoMessage[] }];
};

export interface MediaItem {
  id: string;
  status: string;
  mimeType: string;
  /** IMAGE, GIF, VIDEO or AUDIO. */
  kind: string;
  sizeBytes: number | null;
  durationSec: number | null;
  url: string | null;
}

/** The media library of a workspace, as far as posts needs it. */
export interface MediaDirectory {
  /** Media of the workspace by id; ids not in the workspace are absent. */
  batchGet(workspaceId: string, ids: string[]): Promise<Map<string, MediaItem>>;
  close(): void;
}

const mediaDefinition = () => serviceDefinition('media/v1/media.proto', 'media.v1.MediaService');

export function grpcMediaDirectory(address: string, opts: { signer: TokenSigner; deadlineMs: number }): MediaDirectory {
  const client: GrpcClient<MediaMethods> = createGrpcClient<MediaMethods>(mediaDefinition(), address, {
    audience: 'media',
    signer: opts.signer,
    defaultDeadlineMs: opts.deadlineMs,
  });
  return {
    async batchGet(workspaceId, ids) {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return new Map();
      let res: { items: MediaInfoMessage[] };
      try {
        res = await client.call('BatchGetMedia', { ids: unique }, { workspaceId });
      } catch (err) {
        throw neighbourFailure('media', 'BatchGetMedia', err);
      }
      return new Map(
        res.items.map((m) => [
          m.id,
          {
            id: m.id,
            status: m.status,
            mimeType: m.mime_type,
            kind: m.kind,
            sizeBytes: m.file_size_bytes > 0 ? m.file_size_bytes : null,
            durationSec: m.duration_seconds > 0 ? m.duration_seconds : null,
            url: m.url || null,
          },
        ]),
      );
    },
    close: () => client.close(),
  };
}
