import { AppError, ErrorCodes } from '@social/errors';
import type { ServerStreamHandler } from '@social/grpc';
import { mediaNotFound } from '../domain/media.errors';
import type { MediaRecords } from '../domain/ports';
import type { FileStore } from '../domain/ports';
import type { FileChunk } from '@social/contracts';

/**
 * The stored file of a SUCCESS media of the caller's workspace, in the store's chunks (1 MiB), so
 * the publisher can upload it to a network without the file ever being whole in memory here.
 */
export function readMediaFile(repo: MediaRecords, store: FileStore): ServerStreamHandler<{ id: string }, FileChunk> {
  return async function* (request, ctx) {
    const media = await repo.find(ctx.workspaceId, request.id);
    if (!media) throw mediaNotFound();
    if (media.status !== 'SUCCESS' || !media.fileId) {
      throw new AppError('MEDIA_NOT_READY', 409, `The media is ${media.status}; only SUCCESS media can be read.`);
    }
    const stat = await store.stat(media.fileId);
    if (!stat) throw new AppError(ErrorCodes.INTERNAL, 500, 'The stored file of the media is missing.');
    let first = true;
    for await (const data of store.read(media.fileId)) {
      yield { data: data as Buffer, mime_type: first ? (media.mimeType ?? '') : '', total_bytes: first ? stat.size : 0 };
      first = false;
    }
  };
}
