import { createLogger, errorFields } from '@social/logger';
import type { MediaRecord } from './media.types';
import type { FileStore } from './ports';

const log = createLogger('media');

/** Deletes the stored files a media names (file, preview, direct upload); a failure only orphans the file. */
export async function removeFiles(store: FileStore, media: MediaRecord): Promise<void> {
  for (const id of [media.fileId, media.previewId, media.incomingId]) {
    if (!id) continue;
    await store.delete(id).catch((err) => log.error('could not delete a stored file; it is orphaned', { fileId: id, ...errorFields(err) }));
  }
}
