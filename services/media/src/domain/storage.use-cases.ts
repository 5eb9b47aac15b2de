import type { Readable } from 'node:stream';
import { formatBytes, limited, TooLargeError } from './byte-limit';
import { removeFiles } from './media-files';
import {
  alreadyConfirmed,
  fileForbidden,
  fileNotReady,
  mediaNotFound,
  unsupportedUploadType,
  uploadForbidden,
  uploadInterrupted,
  uploadTooLarge,
} from './media.errors';
import type { MediaRecord } from './media.types';
import type { DirectTransfer, FileStore, MediaRecords } from './ports';
import { ACCEPTED_UPLOAD_TYPES } from './processing/detect-type';
import { filePath, uploadPath, type UrlSigner } from './signing';

export interface StorageDeps {
  repo: MediaRecords;
  store: FileStore;
  /** Set when clients move bytes to and from the store by presigned addresses (S3_DIRECT_TRANSFER). */
  direct: DirectTransfer | null;
  signer: UrlSigner;
  maxUploadBytes: number;
}

export interface IncomingUpload {
  mediaId: string;
  query: Record<string, unknown>;
  contentType: string | undefined;
  contentLength: number | undefined;
  body: Readable;
}

/** The answer to a signed address when the store takes over: 307 to this presigned address. */
export interface Redirect {
  redirect: string;
}

/** What is left of a signed address's lifetime (its `expires`, already verified), at least 1 s. */
const remainingSeconds = (query: Record<string, unknown>) => Math.max(1, Number(query['expires']) - Math.floor(Date.now() / 1000));

export const FILE_CACHE_CONTROL = 'private, max-age=300';

export interface FileToSend {
  stream: Readable;
  contentType: string;
  size: number;
  start: number;
  end: number;
  partial: boolean;
}

/** The storage host: the signed PUT of an upload and the signed GETs of a media's files. */
export class StorageUseCases {
  constructor(private readonly deps: StorageDeps) {}

  /**
   * Step 2: the signed PUT. The body is streamed into the store through a byte counter that fails the
   * moment the limit is passed, so no upload is ever held whole in memory or stored oversized.
   *
   * With direct transfers (S3) and a Content-Length, every check below is made on the headers alone
   * and the answer is a redirect to a presigned PUT of the store, signed for exactly that type and
   * length (the store refuses any other), valid for what is left of our address: the body is never
   * read here. The key is kept on the media and adopted as its file at confirmation.
   */
  async receiveUpload(upload: IncomingUpload): Promise<void | Redirect> {
    const deps = this.deps;
    if (deps.signer.verify('PUT', uploadPath(upload.mediaId), upload.query) !== 'ok') throw uploadForbidden();
    const contentType = upload.contentType?.split(';')[0]?.trim().toLowerCase();
    if (!contentType || !(ACCEPTED_UPLOAD_TYPES as readonly string[]).includes(contentType)) {
      throw unsupportedUploadType(contentType, ACCEPTED_UPLOAD_TYPES);
    }
    const media = await deps.repo.findById(upload.mediaId);
    if (!media) throw mediaNotFound();
    if (media.source !== 'UPLOAD' || media.uploadState === 'CONFIRMED') throw alreadyConfirmed();
    if (upload.contentLength !== undefined && upload.contentLength > deps.maxUploadBytes)
      throw uploadTooLarge(formatBytes(deps.maxUploadBytes));
    if (deps.direct && upload.contentLength !== undefined) return this.redirectUpload(deps.direct, media, upload);
    let stored;
    try {
      stored = await deps.store.write(limited(upload.body, deps.maxUploadBytes), {
        contentType,
        mediaId: media._id,
        size: upload.contentLength,
      });
    } catch (err) {
      if (err instanceof TooLargeError) throw uploadTooLarge(formatBytes(deps.maxUploadBytes));
      if (upload.body.destroyed && !upload.body.readableEnded) throw uploadInterrupted();
      throw err;
    }
    // Replacing an earlier, unconfirmed upload is allowed; a confirmation in between wins.
    const updated = await deps.repo.updateIf(
      media._id,
      { uploadState: media.uploadState, fileId: media.fileId },
      { uploadState: 'UPLOADED', fileId: stored.id, uploadedContentType: contentType, incomingId: null },
    );
    if (!updated) {
      await deps.store.delete(stored.id);
      const now = await deps.repo.findById(media._id);
      if (!now) throw mediaNotFound();
      throw alreadyConfirmed();
    }
    if (media.fileId || media.incomingId) await removeFiles(deps.store, { ...media, previewId: null });
  }

  private async redirectUpload(direct: DirectTransfer, media: MediaRecord, upload: IncomingUpload): Promise<Redirect> {
    const deps = this.deps;
    const key = direct.newKey();
    const updated = await deps.repo.updateIf(
      media._id,
      { uploadState: media.uploadState, fileId: media.fileId, incomingId: media.incomingId },
      { incomingId: key },
    );
    if (!updated) {
      if (!(await deps.repo.findById(media._id))) throw mediaNotFound();
      throw alreadyConfirmed();
    }
    // An earlier direct upload is replaced (as a second PUT replaces the first).
    if (media.incomingId) await removeFiles(deps.store, { ...media, fileId: null, previewId: null });
    // The type as the client sent it: the store compares the signed header with the one it receives.
    const redirect = await direct.presignPut(
      key,
      { contentType: upload.contentType!, contentLength: upload.contentLength! },
      remainingSeconds(upload.query),
    );
    return { redirect };
  }

  /**
   * A signed GET of a media's file. The preview address answers with the uploaded file until a
   * preview exists, so the previewUrl of POST /media works right after the upload.
   */
  async openFile(
    mediaId: string,
    variant: 'original' | 'preview',
    query: Record<string, unknown>,
    rangeHeader: string | undefined,
  ): Promise<FileToSend | Redirect | { unsatisfiable: number }> {
    const deps = this.deps;
    if (deps.signer.verify('GET', filePath(mediaId, variant), query) !== 'ok') throw fileForbidden();
    const media = await deps.repo.findById(mediaId);
    if (!media) throw fileNotReady();
    // A direct upload not yet confirmed is served too (as an upload through the service is).
    const candidates = variant === 'preview' ? [media.previewId, media.incomingId, media.fileId] : [media.incomingId, media.fileId];
    let stat = null;
    for (const id of candidates) if (id && !stat) stat = await deps.store.stat(id);
    if (!stat) throw fileNotReady();
    const fileId = stat.id;
    const contentType =
      fileId === media.previewId
        ? 'image/jpeg'
        : fileId === media.incomingId
          ? stat.contentType
          : (media.mimeType ?? media.uploadedContentType ?? stat.contentType);
    if (deps.direct && !stat.legacy) {
      return { redirect: await deps.direct.presignGet(fileId, { contentType, cacheControl: FILE_CACHE_CONTROL }, remainingSeconds(query)) };
    }
    const range = parseRange(rangeHeader, stat.size);
    if (range === 'unsatisfiable') return { unsatisfiable: stat.size };
    const { start, end } = range ?? { start: 0, end: stat.size - 1 };
    const stream = stat.size === 0 ? deps.store.read(fileId) : deps.store.read(fileId, { start, end });
    return { stream, contentType, size: stat.size, start, end, partial: range !== null };
  }
}

/** One `bytes=a-b`, `bytes=a-` or `bytes=-n` range; anything else is served whole. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  const m = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}
