import type { UnaryHandler } from '@social/grpc';
import { badRequest } from '../domain/media.errors';
import { signedUrls, type FileUrls } from '../domain/media.view';
import type { MediaRecords } from '../domain/ports';
import type { MediaInfo } from '@social/contracts';

const MAX_IDS = 100;

/** Media of the caller's workspace by id; unknown ids are simply absent. */
export function batchGetMedia(repo: MediaRecords, urls: FileUrls): UnaryHandler<{ ids: string[] }, { items: MediaInfo[] }> {
  return async (request, ctx) => {
    const ids = [...new Set(request.ids)];
    if (ids.length > MAX_IDS) throw badRequest([{ path: '/ids', message: `must have at most ${MAX_IDS} ids` }]);
    const docs = await repo.findMany(ctx.workspaceId, ids);
    return {
      items: docs.map((d) => {
        const { path, preview } = signedUrls(d, urls);
        const ready = d.status === 'SUCCESS';
        return {
          id: d._id,
          name: d.name,
          status: d.status,
          mime_type: ready ? (d.mimeType ?? '') : '',
          kind: ready ? (d.kind ?? '') : '',
          width: d.specs?.width ?? 0,
          height: d.specs?.height ?? 0,
          duration_seconds: d.specs?.duration ?? 0,
          fps: d.specs?.fps ?? 0,
          file_size_bytes: d.specs?.fileSizeBytes ?? 0,
          url: path ?? '',
          preview_url: preview ?? '',
          destination_type: d.destinationType,
          error_reason: d.errorReason ?? '',
        };
      }),
    };
  };
}
