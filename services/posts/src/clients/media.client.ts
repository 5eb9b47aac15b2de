import { createMediaClient, type BatchGetMediaResponse } from '@social/contracts';
import type { TokenSigner } from '@social/internal-auth';
import type { MediaDirectory } from '../domain/posts/ports';
import { neighbourFailure } from '@social/grpc';

export function grpcMediaDirectory(address: string, opts: { signer: TokenSigner; deadlineMs: number }): MediaDirectory {
  const client = createMediaClient(address, {
    signer: opts.signer,
    defaultDeadlineMs: opts.deadlineMs,
  });
  return {
    async batchGet(workspaceId, ids) {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return new Map();
      let res: BatchGetMediaResponse;
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
