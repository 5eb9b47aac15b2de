import { Readable } from 'node:stream';
import sharp from 'sharp';
import { removeFiles } from '../media-files';
import { providerFailed } from '../media.errors';
import { blank } from '../media.rules';
import { toGeneratedView, type FileUrls } from '../media.view';
import type { FileStore, MediaRecords } from '../ports';
import type { ImageProvider } from './ports';
import { DEFAULT_QUALITY, imageSize, type AspectRatio, type Quality } from './image-sizes';

export interface GenerationDeps {
  repo: MediaRecords;
  store: FileStore;
  provider: ImageProvider;
  urls: FileUrls;
}

export interface GenerateImageInput {
  prompt: string;
  aspectRatio: AspectRatio;
  quality?: Quality;
  targetWidth?: number;
  targetHeight?: number;
}

const PREVIEW_SIZE = 640;

/**
 * Generates an image, stores it as a JPEG at quality 100 in sRGB at exactly the requested size, and
 * adds it to the library as a SUCCESS media (so the id is usable as mediaLibId at once).
 */
export class GenerateImage {
  constructor(private readonly deps: GenerationDeps) {}

  async execute(workspaceId: string, input: GenerateImageInput) {
    const deps = this.deps;
    const quality = input.quality ?? DEFAULT_QUALITY;
    const target =
      input.targetWidth !== undefined && input.targetHeight !== undefined
        ? { width: input.targetWidth, height: input.targetHeight }
        : undefined;
    const { width, height } = imageSize(input.aspectRatio, quality, target);
    let raw: Buffer;
    try {
      raw = await deps.provider.generate({ prompt: input.prompt, width, height, quality });
    } catch (err) {
      throw providerFailed((err as Error).message);
    }
    let jpeg: Buffer;
    let preview: Buffer;
    try {
      // Providers may answer with another size or format; the library always gets what was asked for.
      const normalized = sharp(raw)
        .rotate()
        .resize(width, height, { fit: 'cover' })
        .flatten({ background: '#ffffff' })
        .toColorspace('srgb');
      jpeg = await normalized.clone().withIccProfile('srgb').jpeg({ quality: 100, chromaSubsampling: '4:4:4' }).toBuffer();
      preview = await sharp(jpeg).resize(PREVIEW_SIZE, PREVIEW_SIZE, { fit: 'inside' }).jpeg({ quality: 80 }).toBuffer();
    } catch (err) {
      throw providerFailed(`the provider returned an image that cannot be decoded (${(err as Error).message})`);
    }
    const base = blank(deps.repo.newId(), workspaceId, nameOf(input.prompt), 'POST_MEDIA');
    const file = await deps.store.write(Readable.from([jpeg]), { contentType: 'image/jpeg', mediaId: base._id });
    const thumb = await deps.store.write(Readable.from([preview]), { contentType: 'image/jpeg', mediaId: base._id });
    try {
      const media = await deps.repo.create({
        ...base,
        source: 'GENERATED',
        uploadState: 'CONFIRMED',
        unconfirmed: false,
        status: 'SUCCESS',
        mimeType: 'image/jpeg',
        kind: 'IMAGE',
        specs: { width, height, duration: null, fileSizeBytes: jpeg.length, fps: null },
        fileId: file.id,
        previewId: thumb.id,
      });
      return toGeneratedView(media, deps.urls);
    } catch (err) {
      await removeFiles(deps.store, {
        ...base,
        source: 'GENERATED',
        uploadState: 'CONFIRMED',
        unconfirmed: false,
        fileId: file.id,
        previewId: thumb.id,
        createdAt: new Date(),
        updatedAt: new Date(),
      });
      throw err;
    }
  }
}

/** The library name of a generated image: the prompt, shortened. */
const nameOf = (prompt: string) => {
  const flat = prompt.replace(/\s+/g, ' ').trim();
  return flat.length > 100 ? `${flat.slice(0, 99)}…` : flat;
};
