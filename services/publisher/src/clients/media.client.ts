import { createMediaClient } from '@social/contracts';
import type { TokenSigner } from '@social/internal-auth';
import type { MediaFile, MediaSource } from '../domain/ports';

const positive = (n: number | string | undefined) => (n !== undefined && Number(n) > 0 ? Number(n) : null);

/**
 * Media by signed URL: the network fetches the file itself, which is how the sandbox (and most
 * networks' APIs) take media; ReadMediaFile streaming is for networks that need an upload.
 */
export function grpcMediaSource(address: string, opts: { signer: TokenSigner; deadlineMs: number }): MediaSource & { close(): void } {
  const client = createMediaClient(address, {
    signer: opts.signer,
    defaultDeadlineMs: opts.deadlineMs,
  });
  return {
    async batchGet(workspaceId, ids) {
      const unique = [...new Set(ids)];
      const out = new Map<string, MediaFile>();
      if (unique.length === 0) return out;
      const res = await client.call('BatchGetMedia', { ids: unique }, { workspaceId });
      for (const m of res.items ?? []) {
        out.set(m.id, {
          id: m.id,
          status: m.status,
          mimeType: m.mime_type,
          url: m.url,
          sizeBytes: positive(m.file_size_bytes),
          durationSec: positive(m.duration_seconds),
          width: positive(m.width),
          height: positive(m.height),
        });
      }
      return out;
    },
    close: () => client.close(),
  };
}
