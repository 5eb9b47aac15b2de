import { Readable } from 'node:stream';
import { mediaFailedEvent, mediaReadyEvent } from '@social/contracts';
import { noEvents, type EventEmitter } from '@social/events';
import { createLogger, errorFields } from '@social/logger';
import { formatBytes, limited, TooLargeError } from '../byte-limit';
import type { MediaKind, MediaRecord, MediaSpecs } from '../media.types';
import type { FileStore, MediaRecords } from '../ports';
import { FetchRefusedError, safeFetch, type FetchedBody, type FetchPolicy } from '../import/safe-fetch';
import { detectType } from './detect-type';
import { probeAv, probeImage, UndecodableError, withStoredFile } from './probe';
import { mediaProcessingDuration } from '@social/metrics';

const log = createLogger('media:processing');

export interface ProcessingDeps {
  repo: MediaRecords;
  store: FileStore;
  fetchPolicy: FetchPolicy;
  limits: { importMaxVideoBytes: number; importMaxImageBytes: number };
  /** media.ready / media.failed for webhooks, after the write; never fails the job. */
  events?: EventEmitter;
}

/** A problem with the file or its URL: the media turns ERROR with this reason (no retry helps). */
class MediaRejected extends Error {}

const processingDuration = mediaProcessingDuration();

/**
 * The processing job: fetch the file when it was imported by URL, then detect its type from the
 * bytes, measure it with real decoders, make a preview and publish the result on the media.
 * Safe to run twice for one media: it only acts on media still PROCESSING, and the final update is
 * a compare-and-set. Infrastructure failures throw, so the job is retried.
 */
export class ProcessMedia {
  constructor(private readonly deps: ProcessingDeps) {}

  async execute(mediaId: string): Promise<void> {
    const deps = this.deps;
    let media = await deps.repo.findById(mediaId);
    if (!media || media.status !== 'PROCESSING') return;
    if (media.source === 'UPLOAD' && media.uploadState !== 'CONFIRMED') return;
    const observe = processingDuration.startTimer({ kind: media.source === 'URL' ? 'import' : 'upload' });
    try {
      if (media.source === 'URL' && !media.fileId) media = await importFile(deps, media);
      if (!media?.fileId) return;
      const result = await analyse(deps, media.fileId);
      const preview = result.preview ? await deps.store.write(bufferStream(result.preview), { contentType: 'image/jpeg', mediaId }) : null;
      const done = await deps.repo.updateIf(
        mediaId,
        { status: 'PROCESSING', fileId: media.fileId },
        {
          status: 'SUCCESS',
          mimeType: result.mimeType,
          kind: result.kind,
          specs: result.specs,
          previewId: preview?.id ?? null,
          errorReason: null,
        },
      );
      // Deleted (or finished by another delivery) while we worked: do not leave our preview behind.
      if (!done && preview) await deps.store.delete(preview.id);
      if (done) {
        log.info('media processed', { mediaId, kind: result.kind, mimeType: result.mimeType });
        (deps.events ?? noEvents).emit(
          mediaReadyEvent,
          { mediaId, kind: result.kind, readyAt: done.updatedAt.toISOString() },
          done.workspaceId,
        );
      }
      observe({ outcome: 'ok' });
    } catch (err) {
      observe({ outcome: err instanceof MediaRejected ? 'rejected' : 'failed' });
      if (!(err instanceof MediaRejected)) throw err;
      log.info('media rejected', { mediaId, reason: err.message });
      const failed = await deps.repo.updateIf(mediaId, { status: 'PROCESSING' }, { status: 'ERROR', errorReason: err.message });
      if (failed) {
        const error = { code: 'MEDIA_REJECTED', message: err.message };
        (deps.events ?? noEvents).emit(mediaFailedEvent, { mediaId, error, failedAt: failed.updatedAt.toISOString() }, failed.workspaceId);
      }
    }
  }
}

async function importFile(deps: ProcessingDeps, media: MediaRecord): Promise<MediaRecord | null> {
  const { importMaxVideoBytes: maxVideo, importMaxImageBytes: maxImage } = deps.limits;
  let stored;
  let body: FetchedBody | undefined;
  try {
    body = await safeFetch(media.fileUrl!, deps.fetchPolicy);
    try {
      const declaredImage = body.contentType?.startsWith('image/') ?? false;
      const limit = declaredImage ? maxImage : maxVideo;
      if (body.contentLength !== undefined && body.contentLength > limit) {
        body.stream.destroy();
        throw new MediaRejected(
          `the file at fileUrl is larger than the import limit of ${formatBytes(limit)} for ${declaredImage ? 'images' : 'videos'} (Content-Length ${body.contentLength})`,
        );
      }
      stored = await deps.store.write(limited(body.stream, limit), {
        contentType: body.contentType ?? 'application/octet-stream',
        mediaId: media._id,
        // Known from the Content-Length (usually sent): the store can stream it on in one request.
        size: body.contentLength,
      });
    } finally {
      body.done();
      // After a failed write the rest of the response is unread: release its connection.
      body.stream.destroy();
    }
  } catch (err) {
    if (err instanceof MediaRejected) throw err;
    if (err instanceof FetchRefusedError) throw new MediaRejected(`fetching fileUrl failed: ${err.reason}`);
    if (err instanceof TooLargeError)
      throw new MediaRejected(`the file at fileUrl is larger than the import limit of ${formatBytes(err.limit)}`);
    // The connection dropped mid-body and similar: a fetch that fails turns the media to ERROR. A
    // store that fails (its own connection) is an infrastructure failure: the job is retried.
    if (isNetworkError(err) && body?.stream.errored)
      throw new MediaRejected(`fetching fileUrl failed: the connection broke off (${(err as Error).message})`);
    throw err;
  }
  const updated = await deps.repo.updateIf(
    media._id,
    { status: 'PROCESSING', fileId: null },
    { fileId: stored.id, uploadedContentType: stored.contentType },
  );
  if (!updated) await deps.store.delete(stored.id);
  return updated;
}

const isNetworkError = (err: unknown) =>
  typeof (err as { code?: unknown })?.code === 'string' && /^(E[A-Z]+|ERR_STREAM_PREMATURE_CLOSE)$/.test((err as { code: string }).code);

interface Analysis {
  mimeType: string;
  kind: MediaKind;
  specs: MediaSpecs;
  preview: Buffer | null;
}

async function analyse(deps: ProcessingDeps, fileId: string): Promise<Analysis> {
  const stat = await deps.store.stat(fileId);
  if (!stat) throw new Error(`stored file ${fileId} is missing`);
  if (stat.size === 0) throw new MediaRejected('the file is empty');
  const head = await readHead(deps.store.read(fileId, { start: 0, end: Math.min(stat.size, 64) - 1 }));
  const type = detectType(head);
  if (!type) throw new MediaRejected('the file is not a supported image, video or audio format (detected from its content)');
  const isImage = type.kind === 'IMAGE' || type.kind === 'GIF';
  if (isImage && stat.size > deps.limits.importMaxImageBytes) {
    throw new MediaRejected(`the image is larger than the image limit of ${formatBytes(deps.limits.importMaxImageBytes)}`);
  }
  try {
    const m = await withStoredFile(deps.store, fileId, { remote: !isImage }, (file) =>
      isImage ? probeImage(file, type.kind) : probeAv(file, type.kind),
    );
    return {
      ...type,
      specs: { width: m.width, height: m.height, duration: m.duration, fileSizeBytes: stat.size, fps: m.fps },
      preview: m.preview,
    };
  } catch (err) {
    if (err instanceof UndecodableError) throw new MediaRejected(err.message);
    log.warn('probe failed', { fileId, ...errorFields(err) });
    throw err;
  }
}

async function readHead(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

const bufferStream = (buf: Buffer): Readable => Readable.from([buf]);
