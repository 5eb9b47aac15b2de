import { createLogger, errorFields } from '@social/logger';
import { serviceUnavailable } from '@social/errors';
import { FetchRefusedError, precheckUrl, type FetchPolicy } from './import/safe-fetch';
import { removeFiles } from './media-files';
import { invalidFileUrl, mediaInUse, mediaNotFound, notUploaded } from './media.errors';
import { blank } from './media.rules';
import type { DestinationType, MediaRecord, MediaSpecs } from './media.types';
import { toMediaView, type FileUrls, type MediaView } from './media.view';
import type { FileStore, MediaRecords, MediaUsage, ProcessingQueue } from './ports';
import { filePath, uploadPath, type UrlSigner } from './signing';

const log = createLogger('media');

export interface MediaDeps {
  repo: MediaRecords;
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

export interface ImportInput {
  name: string;
  destinationType: DestinationType;
  fileUrl: string;
}

/** The media library of a workspace: upload (create, confirm), import by URL, read, delete. */
export class MediaUseCases {
  constructor(private readonly deps: MediaDeps) {}

  /** Step 1: a PROCESSING media and the signed addresses to upload it and to read it back. */
  async createUpload(workspaceId: string, input: CreateUploadInput) {
    const deps = this.deps;
    const declared: Partial<MediaSpecs> = {
      ...(input.width !== undefined ? { width: input.width } : {}),
      ...(input.height !== undefined ? { height: input.height } : {}),
      ...(input.duration !== undefined ? { duration: input.duration } : {}),
      ...(input.fileSize !== undefined ? { fileSizeBytes: input.fileSize } : {}),
    };
    const media = await deps.repo.create({
      ...blank(deps.repo.newId(), workspaceId, input.name, input.destinationType),
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
  async confirmUpload(workspaceId: string, mediaId: string): Promise<MediaView> {
    const deps = this.deps;
    const media = await deps.repo.find(workspaceId, mediaId);
    if (!media) throw mediaNotFound();
    if (media.source !== 'UPLOAD' || media.uploadState === 'CONFIRMED') return toMediaView(media, deps.urls);
    if (media.incomingId) {
      const adopted = await this.adoptDirectUpload(media);
      if (adopted !== media) return this.confirmUpload(workspaceId, mediaId);
    }
    if (media.uploadState === 'PENDING') throw notUploaded();
    const confirmed = await deps.repo.updateIf(
      mediaId,
      { uploadState: 'UPLOADED', fileId: media.fileId },
      { uploadState: 'CONFIRMED', unconfirmed: false },
    );
    // A concurrent PUT or PATCH changed it under us: answer from what is there now.
    if (!confirmed) return this.confirmUpload(workspaceId, mediaId);
    try {
      await deps.queue.enqueue({ mediaId, workspaceId });
    } catch (err) {
      // Without a job the media would stay PROCESSING for ever: undo, so the client can retry.
      await deps.repo.updateIf(mediaId, { uploadState: 'CONFIRMED', status: 'PROCESSING' }, { uploadState: 'UPLOADED', unconfirmed: true });
      throw err;
    }
    return toMediaView(confirmed, deps.urls);
  }

  async get(workspaceId: string, mediaId: string): Promise<MediaView> {
    const media = await this.deps.repo.find(workspaceId, mediaId);
    if (!media) throw mediaNotFound();
    return toMediaView(media, this.deps.urls);
  }

  /** Permanent: metadata first (so the media disappears at once), then the file and its preview. */
  async delete(workspaceId: string, mediaId: string): Promise<void> {
    const deps = this.deps;
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

  /** Import by URL: checked now, fetched and processed by a worker. */
  async importFromUrl(workspaceId: string, input: ImportInput): Promise<MediaView> {
    const deps = this.deps;
    try {
      await precheckUrl(input.fileUrl, deps.fetchPolicy);
    } catch (err) {
      if (err instanceof FetchRefusedError) throw invalidFileUrl(err.reason);
      throw err;
    }
    const media = await deps.repo.create({
      ...blank(deps.repo.newId(), workspaceId, input.name, input.destinationType),
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

  /**
   * A direct upload (presigned PUT to the store) is known only by its key until the store holds the
   * object: when it does, it becomes the media's file (the type is the one the client sent, which the
   * presigned address signed). Returns the media as it is now; the same object when there was nothing
   * to adopt (any other object means: read the media again).
   */
  private async adoptDirectUpload(media: MediaRecord): Promise<MediaRecord> {
    const { repo, store } = this.deps;
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
}
