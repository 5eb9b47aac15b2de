import type { MediaRecord } from './media.types';
import { filePath, type UrlSigner } from './signing';

export interface MediaView {
  id: string;
  name: string;
  path: string | null;
  preview: string | null;
  type: string | null;
  status: string;
  specs: { width: number | null; height: number | null; duration: number | null; fileSizeBytes: number } | null;
  createdAt: string;
  /** Why processing failed; null unless status is ERROR. */
  errorReason: string | null;
}

export interface FileUrls {
  signer: UrlSigner;
  ttlSeconds: number;
}

/** Signed GET addresses of the file and its preview, null until the media is SUCCESS. */
export function signedUrls(doc: MediaRecord, urls: FileUrls, now = new Date()) {
  if (doc.status !== 'SUCCESS' || !doc.fileId) return { path: null, preview: null };
  const expires = new Date(now.getTime() + urls.ttlSeconds * 1000);
  return {
    path: urls.signer.sign('GET', filePath(doc._id, 'original'), expires),
    preview: doc.previewId ? urls.signer.sign('GET', filePath(doc._id, 'preview'), expires) : null,
  };
}

/** The Media of spec 2.3. */
export function toMediaView(doc: MediaRecord, urls: FileUrls): MediaView {
  const ready = doc.status === 'SUCCESS' && doc.specs;
  return {
    id: doc._id,
    name: doc.name,
    ...signedUrls(doc, urls),
    type: ready ? doc.mimeType : null,
    status: doc.status,
    specs: ready
      ? { width: doc.specs!.width, height: doc.specs!.height, duration: doc.specs!.duration, fileSizeBytes: doc.specs!.fileSizeBytes }
      : null,
    createdAt: doc.createdAt.toISOString(),
    errorReason: doc.status === 'ERROR' ? doc.errorReason : null,
  };
}

/** The image-generation response of spec 4.6: kind IMAGE, specs with fps null, no createdAt. */
export function toGeneratedView(doc: MediaRecord, urls: FileUrls) {
  return {
    id: doc._id,
    name: doc.name,
    ...signedUrls(doc, urls),
    type: 'IMAGE',
    status: doc.status,
    specs: {
      width: doc.specs!.width,
      height: doc.specs!.height,
      duration: null,
      fileSizeBytes: doc.specs!.fileSizeBytes,
      fps: null,
    },
  };
}
