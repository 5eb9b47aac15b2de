import { createLogger, errorFields } from '@social/logger';
import { serviceUnavailable } from '@social/errors';
import { newId } from '../data/ids';
import type { DestinationType, MediaDoc, MediaSpecs } from '../data/media.model';
import type { MediaRepository } from '../data/media.repository';
import type { FileStore } from '../storage/file-store';
import { FetchRefusedError, precheckUrl, type FetchPolicy } from './import/safe-fetch';
import { invalidFileUrl, mediaInUse, mediaNotFound, notUploaded } from './media.errors';
import { toMediaView, type FileUrls, type MediaView } from './media.view';
import type { MediaUsage, ProcessingQueue } from './ports';
import { filePath, uploadPath, type UrlSigner } from './signing';

const log = createLogger('media');

export interface LibraryDeps {
  repo: MediaRepository;
  store: FileStore;
  queue: ProcessingQueue;
  usage: MediaUsage;
  signer: UrlSigner;
  urls: FileUrls;
  fetchPolicy: Pick<FetchPolicy, 'resolver' | 'allow'>;
  uploadUrlTtlSeconds: number;
}

export interface CreateUploadInput {
  name: string;
  destinationType: DestinationType;
  width?: number;
  height?: number;
  duration?: number | null;
  fileSize?: number;
}

/** Step 1: a PROCESSING media and the signed addresses to upload it and to read it back. */
export async function createUpload(deps: LibraryDeps, workspaceId: string, input: CreateUploadInput) {
  const declared: Partial<MediaSpecs> = {
    ...(input.width !== undefined ? { width: input.width } : {}),
    ...(input.height !== undefined ? { height: input.height } : {}),
    ...(input.duration !== undefined ? { duration: input.duration } : {}),
    ...(input.fileSize !== undefined ? { fileSizeBytes: input.fileSize } : {}),
  };
  const media = await deps.repo.create({
    ...blank(workspaceId, input.name, input.destinationType),
    source: 'UPLOAD',
    uploadState: 'PENDING',
    unconfirmed: true,
    declaredSpecs: Object.keys(declared).length > 0 ? declared : null,
  });
  const now = Date.now();
  return {
    id: media._id,
    // Valid as long as file addresses are, so it still works after the upload.
    previewUrl: deps.signer.sign('GET', filePath(media._id, 'preview'), new Date(now + deps.urls.ttlSeconds * 1000)),
    uploadUrl: deps.signer.sign('PUT', uploadPath(media._id), new Date(now + deps.uploadUrlTtlSeconds * 1000)),
  };
}

/** Step 3: confirms the upload and queues processing. Confirming twice answers the current state. */
export async function confirmUpload(deps: LibraryDeps, workspaceId: string, mediaId: string): Promise<MediaView> {
  const media = await deps.repo.find(workspaceId, mediaId);
  if (!media) throw mediaNotFound();
  if (media.source !== 'UPLOAD' || media.uploadState === 'CONFIRMED') return toMediaView(media, deps.urls);
  if (media.incomingId) {
    const adopted = await adoptDirectUpload(deps.repo, deps.store, media);
    if (adopted !== media) return confirmUpload(deps, workspaceId, mediaId);
  }
  if (media.uploadState === 'PENDING') throw notUploaded();
  const confirmed = await deps.repo.updateIf(
    mediaId,
    { uploadState: 'UPLOADED', fileId: media.fileId },
    { uploadState: 'CONFIRMED', unconfirmed: false },
  );
  // A concurrent PUT or PATCH changed it under us: answer from what is there now.
  if (!confirmed) return confirmUpload(deps, workspaceId, mediaId);
  try {
    await deps.queue.enqueue({ mediaId, workspaceId });
  } catch (err) {
    // Without a job the media would stay PROCESSING for ever: undo, so the client can retry.
    await deps.repo.updateIf(mediaId, { uploadState: 'CONFIRMED', status: 'PROCESSING' }, { uploadState: 'UPLOADED', unconfirmed: true });
    throw err;
  }
  return toMediaView(confirmed, deps.urls);
}

export async function getMedia(deps: LibraryDeps, workspaceId: string, mediaId: string): Promise<MediaView> {
  const media = await deps.repo.find(workspaceId, mediaId);
  if (!media) throw mediaNotFound();
  return toMediaView(media, deps.urls);
}

/** Permanent: metadata first (so the media disappears at once), then the file and its preview. */
export async function deleteMedia(deps: LibraryDeps, workspaceId: string, mediaId: string): Promise<void> {
  const media = await deps.repo.find(workspaceId, mediaId);
  if (!media) throw mediaNotFound();
  let usage;
  try {
    usage = await deps.usage.count(workspaceId, mediaId);
  } catch (err) {
    // Fail safe: without the posts service we cannot know whether a scheduled post needs the file.
    log.warn('media usage check failed', { mediaId, ...errorFields(err) });
    throw serviceUnavailable('The check of posts using this media');
  }
  if (usage.scheduled > 0) throw mediaInUse(usage.scheduled);
  if (!(await deps.repo.delete(workspaceId, mediaId))) throw mediaNotFound();
  await removeFiles(deps.store, media);
}

/**
 * A direct upload (presigned PUT to the store) is known only by its key until the store holds the
 * object: when it does, it becomes the media's file (the type is the one the client sent, which the
 * presigned address signed). Returns the media as it is now; the same object when there was nothing
 * to adopt (any other object means: read the media again).
 */
export async function adoptDirectUpload(repo: MediaRepository, store: FileStore, media: MediaDoc): Promise<MediaDoc> {
  const incomingId = media.incomingId;
  if (!incomingId) return media;
  const stat = await store.stat(incomingId);
  if (!stat) return media;
  const adopted = await repo.updateIf(
    media._id,
    { uploadState: media.uploadState, fileId: media.fileId, incomingId },
    {
      uploadState: 'UPLOADED',
      fileId: incomingId,
      incomingId: null,
      uploadedContentType: stat.contentType.split(';')[0]!.trim().toLowerCase(),
    },
  );
  if (!adopted) return { ...media, incomingId: null };
  if (media.fileId) await removeFiles(store, { ...media, previewId: null, incomingId: null });
  return adopted;
}

export async function removeFiles(store: FileStore, media: MediaDoc): Promise<void> {
  for (const id of [media.fileId, media.previewId, media.incomingId]) {
    if (!id) continue;
    await store.delete(id).catch((err) => log.error('could not delete a stored file; it is orphaned', { fileId: id, ...errorFields(err) }));
  }
}

export interface ImportInput {
  name: string;
  destinationType: DestinationType;
  fileUrl: string;
}

/** Import by URL: checked now, fetched and processed by a worker. */
export async function importFromUrl(deps: LibraryDeps, workspaceId: string, input: ImportInput): Promise<MediaView> {
  try {
    await precheckUrl(input.fileUrl, deps.fetchPolicy);
  } catch (err) {
    if (err instanceof FetchRefusedError) throw invalidFileUrl(err.reason);
    throw err;
  }
  const media = await deps.repo.create({
    ...blank(workspaceId, input.name, input.destinationType),
    source: 'URL',
    uploadState: 'CONFIRMED',
    unconfirmed: false,
    fileUrl: input.fileUrl,
  });
  try {
    await deps.queue.enqueue({ mediaId: media._id, workspaceId });
  } catch (err) {
    await deps.repo.delete(workspaceId, media._id);
    throw err;
  }
  return toMediaView(media, deps.urls);
}

/** Deletes uploads never confirmed within the TTL (FerretDB has no TTL indexes, so this runs periodically). */
export async function sweepUnconfirmed(deps: Pick<LibraryDeps, 'repo' | 'store'>, ttlMinutes: number, now = new Date()): Promise<number> {
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

export function blank(workspaceId: string, name: string, destinationType: DestinationType) {
  return {
    _id: newId(),
    workspaceId,
    name,
    destinationType,
    status: 'PROCESSING' as const,
    mimeType: null,
    kind: null,
    specs: null,
    declaredSpecs: null,
    fileUrl: null,
    fileId: null,
    incomingId: null,
    uploadedContentType: null,
    previewId: null,
    errorReason: null,
  };
}
