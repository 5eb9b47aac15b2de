import { createLogger } from '@social/logger';
import { removeFiles } from './media-files';
import type { FileStore, MediaRecords } from './ports';

const log = createLogger('media');

export interface SweepDeps {
  repo: MediaRecords;
  store: FileStore;
}

/** Deletes uploads never confirmed within the TTL (FerretDB has no TTL indexes, so the worker runs this periodically). */
export class SweepUnconfirmedUploads {
  constructor(private readonly deps: SweepDeps) {}

  async execute(ttlMinutes: number, now = new Date()): Promise<number> {
    const deps = this.deps;
    const stale = await deps.repo.findUnconfirmedBefore(new Date(now.getTime() - ttlMinutes * 60_000));
    let removed = 0;
    for (const media of stale) {
      // Only if still unconfirmed: a confirmation racing the sweep wins.
      const gone = await deps.repo.updateIf(media._id, { unconfirmed: true, uploadState: media.uploadState }, { status: 'ARCHIVED' });
      if (!gone) continue;
      await deps.repo.delete(media.workspaceId, media._id);
      await removeFiles(deps.store, gone);
      removed++;
    }
    if (removed > 0) log.info('unconfirmed uploads deleted', { removed, ttlMinutes });
    // What interrupted writes of a killed process left (no media names them): as old as the TTL.
    const parts = (await deps.store.sweepIncoming?.(ttlMinutes * 60_000, now.getTime())) ?? 0;
    if (parts > 0) log.info('abandoned partial files deleted', { removed: parts });
    return removed;
  }
}
