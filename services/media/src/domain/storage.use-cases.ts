import type { Readable } from 'node:stream';
import type { MediaRepository } from '../data/media.repository';
import { formatBytes, limited, TooLargeError } from '../storage/byte-limit';
import type { FileStore } from '../storage/file-store';
import { ACCEPTED_UPLOAD_TYPES } from './processing/detect-type';
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
import { filePath, uploadPath, type UrlSigner } from './signing';
import { removeFiles } from './media.use-cases';

export interface StorageDeps {
  repo: MediaRepository;
  store: FileStore;
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

/**
 * Step 2: the signed PUT. The body is streamed into the store through a byte counter that fails the
 * moment the limit is passed, so no upload is ever held whole in memory or stored oversized.
 */
export async function receiveUpload(deps: StorageDeps, upload: IncomingUpload): Promise<void> {
  if (deps.signer.verify('PUT', uploadPath(upload.mediaId), upload.query) !== 'ok') throw uploadForbidden();
  const contentType = upload.contentType?.split(';')[0]?.trim().toLowerCase();
  if (!contentType || !(ACCEPTED_UPLOAD_TYPES as readonly string[]).includes(contentType)) {
    throw unsupportedUploadType(contentType, ACCEPTED_UPLOAD_TYPES);
  }
  const media = await deps.repo.findById(upload.mediaId);
  if (!media) throw mediaNotFound();
  if (media.source !== 'UPLOAD' || media.uploadState === 'CONFIRMED') throw alreadyConfirmed();
  if (upload.contentLength !== undefined && upload.contentLength > deps.maxUploadBytes) throw uploadTooLarge(formatBytes(deps.maxUploadBytes));
  let stored;
  try {
    stored = await deps.store.write(limited(upload.body, deps.maxUploadBytes), { contentType, mediaId: media._id });
  } catch (err) {
    if (err instanceof TooLargeError) throw uploadTooLarge(formatBytes(deps.maxUploadBytes));
    if (upload.body.destroyed && !upload.body.readableEnded) throw uploadInterrupted();
    throw err;
  }
  // Replacing an earlier, unconfirmed upload is allowed; a confirmation in between wins.
  const updated = await deps.repo.updateIf(
    media._id,
    { uploadState: media.uploadState, fileId: media.fileId },
    { uploadState: 'UPLOADED', fileId: stored.id, uploadedContentType: contentType },
  );
  if (!updated) {
    await deps.store.delete(stored.id);
    const now = await deps.repo.findById(media._id);
    if (!now) throw mediaNotFound();
    throw alreadyConfirmed();
  }
  if (media.fileId) await removeFiles(deps.store, { ...media, previewId: null });
}

export interface FileToSend {
  stream: Readable;
  contentType: string;
  size: number;
  start: number;
  end: number;
  partial: boolean;
}

/**
 * A signed GET of a media's file. The preview address answers with the uploaded file until a
 * preview exists, so the previewUrl of POST /media works right after the upload.
 */
export async function openFile(
  deps: StorageDeps,
  mediaId: string,
  variant: 'original' | 'preview',
  query: Record<string, unknown>,
  rangeHeader: string | undefined,
): Promise<FileToSend | { unsatisfiable: number }> {
  if (deps.signer.verify('GET', filePath(mediaId, variant), query) !== 'ok') throw fileForbidden();
  const media = await deps.repo.findById(mediaId);
  if (!media) throw fileNotReady();
  const fileId = variant === 'preview' ? (media.previewId ?? media.fileId) : media.fileId;
  if (!fileId) throw fileNotReady();
  const stat = await deps.store.stat(fileId);
  if (!stat) throw fileNotReady();
  const contentType = fileId === media.previewId ? 'image/jpeg' : (media.mimeType ?? media.uploadedContentType ?? stat.contentType);
  const range = parseRange(rangeHeader, stat.size);
  if (range === 'unsatisfiable') return { unsatisfiable: stat.size };
  const { start, end } = range ?? { start: 0, end: stat.size - 1 };
  const stream = stat.size === 0 ? deps.store.read(fileId) : deps.store.read(fileId, { start, end });
  return { stream, contentType, size: stat.size, start, end, partial: range !== null };
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
