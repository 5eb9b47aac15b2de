import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { MediaKind } from '../media.types';
import type { FileStore } from '../ports';

const run = promisify(execFile);

export interface Measured {
  width: number | null;
  height: number | null;
  duration: number | null;
  fps: number | null;
  /** A JPEG thumbnail (image) or frame (video); null for audio. */
  preview: Buffer | null;
}

/** The file cannot be decoded; the message is shown to the user as the reason. */
export class UndecodableError extends Error {}

const PREVIEW_SIZE = 640;

/**
 * Streams `source()` into a private temporary file, runs `fn` on its path and removes the file. The
 * decoders read the file, never a buffer of it: ffprobe needs to seek (an MP4 index may sit at the
 * end), and sharp given a stream collects the whole input in memory before decoding.
 */
export async function withLocalCopy<T>(source: () => Readable, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'media-probe-'));
  const file = path.join(dir, 'input');
  try {
    // Opened only here, where the pipeline takes its errors (a missing file fails at once).
    await pipeline(source(), fs.createWriteStream(file));
    return await fn(file);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `fn` on the stored file where the store lets the decoders read it in place (`locate`: the fs
 * store's own file; on s3 a presigned address ffprobe and ffmpeg read by ranges, so a video costs its
 * header, its index and one frame rather than the whole file; sharp reads paths only), else on a
 * local copy. When `fn` fails in place it runs again on a copy: a file is only ever rejected by what
 * the decoders say about a complete local copy (the same reasons as always), and a store that fails
 * mid-way fails the job (retried) rather than the file.
 */
export async function withStoredFile<T>(
  store: Pick<FileStore, 'read' | 'locate'>,
  id: string,
  opts: { remote: boolean },
  fn: (file: string) => Promise<T>,
): Promise<T> {
  const location = await store.locate?.(id);
  if (location && (opts.remote || !/^https?:\/\//.test(location))) {
    try {
      return await fn(location);
    } catch {
      // Judged again on a copy, below.
    }
  }
  return withLocalCopy(() => store.read(id), fn);
}

/** Measures an image file with sharp and makes a thumbnail, decoding the whole (first) frame so a corrupt file fails here. */
export async function probeImage(file: string, kind: MediaKind): Promise<Measured> {
  const open = () => sharp(file, { failOn: 'warning', limitInputPixels: 268_402_689 });
  try {
    const [meta, preview] = await Promise.all([
      open().metadata(),
      open()
        .rotate()
        .resize(PREVIEW_SIZE, PREVIEW_SIZE, { fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: 80 })
        .toBuffer(),
    ]);
    if (!meta.width || !meta.height) throw new UndecodableError('the image has no dimensions');
    // GIF frames are stacked; EXIF orientations 5-8 swap the displayed sides.
    const height = kind === 'GIF' && meta.pageHeight ? meta.pageHeight : meta.height;
    const swap = (meta.orientation ?? 1) >= 5;
    return {
      width: swap ? height : meta.width,
      height: swap ? meta.width : height,
      duration: null,
      fps: null,
      preview,
    };
  } catch (err) {
    if (err instanceof UndecodableError) throw err;
    throw new UndecodableError(`the image could not be decoded (${firstLine(err).replaceAll(file, 'the file')})`);
  }
}

interface FfprobeOutput {
  streams?: {
    codec_type?: string;
    width?: number;
    height?: number;
    avg_frame_rate?: string;
    r_frame_rate?: string;
    duration?: string;
    tags?: { rotate?: string };
    side_data_list?: { rotation?: number }[];
  }[];
  format?: { duration?: string };
}

/** Measures a video or audio file with ffprobe and takes a frame with ffmpeg. */
export async function probeAv(file: string, kind: MediaKind): Promise<Measured> {
  let info: FfprobeOutput;
  try {
    const { stdout } = await run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], {
      timeout: 60_000,
      maxBuffer: 4 * 1024 * 1024,
    });
    info = JSON.parse(stdout) as FfprobeOutput;
  } catch (err) {
    const why = firstLine((err as { stderr?: string }).stderr || err)
      .replaceAll(`${file}: `, '')
      .replaceAll(file, 'the file');
    throw new UndecodableError(`the ${kind.toLowerCase()} could not be decoded (${why})`);
  }
  const video = info.streams?.find((s) => s.codec_type === 'video');
  const audio = info.streams?.find((s) => s.codec_type === 'audio');
  const duration = Number(info.format?.duration ?? video?.duration ?? audio?.duration);
  if (kind === 'VIDEO' && !video) throw new UndecodableError('the file has no video stream');
  if (kind === 'AUDIO' && !audio && !video) throw new UndecodableError('the file has no audio stream');
  if (!Number.isFinite(duration) || duration <= 0) throw new UndecodableError('the duration could not be measured');
  if (!video || kind === 'AUDIO') return { width: null, height: null, duration: round(duration, 3), fps: null, preview: null };
  const rotation = Math.abs(Number(video.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? video.tags?.rotate ?? 0));
  const swap = rotation === 90 || rotation === 270;
  const preview = await frameAt(file, Math.min(1, duration / 2));
  return {
    width: (swap ? video.height : video.width) ?? null,
    height: (swap ? video.width : video.height) ?? null,
    duration: round(duration, 3),
    fps: parseRate(video.avg_frame_rate) ?? parseRate(video.r_frame_rate),
    preview,
  };
}

async function frameAt(file: string, seconds: number): Promise<Buffer> {
  try {
    const { stdout } = await run(
      'ffmpeg',
      [
        '-v',
        'error',
        '-ss',
        seconds.toFixed(3),
        '-i',
        file,
        '-frames:v',
        '1',
        '-vf',
        `scale='min(${PREVIEW_SIZE},iw)':-2`,
        '-f',
        'image2pipe',
        '-c:v',
        'mjpeg',
        'pipe:1',
      ],
      { timeout: 60_000, encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
    );
    if (stdout.length === 0) throw new Error('no frame decoded');
    return stdout;
  } catch (err) {
    throw new UndecodableError(
      `no frame of the video could be decoded (${firstLine((err as { stderr?: Buffer }).stderr?.toString() || err)})`,
    );
  }
}

function parseRate(rate: string | undefined): number | null {
  const [n, d] = (rate ?? '').split('/').map(Number);
  if (!n || !d) return null;
  return round(n / d, 3);
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)[0]
      ?.slice(0, 200) ?? 'unknown error'
  );
}
