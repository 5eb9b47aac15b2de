/**
 * Accepted aspect ratios with their default sizes per quality. Every size is a multiple of 16 and
 * within the provider limits. `standard` keeps the long side near 1024-1536, `hd` near 2048.
 */
export const ASPECT_RATIOS = {
  '1:1': { standard: [1024, 1024], hd: [2048, 2048] },
  '4:5': { standard: [1024, 1280], hd: [1632, 2048] },
  '5:4': { standard: [1280, 1024], hd: [2048, 1632] },
  '16:9': { standard: [1536, 864], hd: [2048, 1152] },
  '9:16': { standard: [864, 1536], hd: [1152, 2048] },
  '3:2': { standard: [1536, 1024], hd: [2048, 1360] },
  '2:3': { standard: [1024, 1536], hd: [1360, 2048] },
  '4:3': { standard: [1024, 768], hd: [2048, 1536] },
  '3:4': { standard: [768, 1024], hd: [1536, 2048] },
  '21:9': { standard: [1344, 576], hd: [2048, 880] },
} as const satisfies Record<string, Record<string, readonly [number, number]>>;

export type AspectRatio = keyof typeof ASPECT_RATIOS;
export const QUALITIES = ['standard', 'hd'] as const;
export type Quality = (typeof QUALITIES)[number];
export const DEFAULT_QUALITY: Quality = 'standard';

/** Every side of a generated image is within these limits (both providers). */
export const MIN_SIDE = 256;
export const MAX_SIDE = 2048;
export const SIZE_STEP = 16;
/** Targets beyond this are refused rather than clamped: they are a client bug, not a wish. */
export const MAX_TARGET = 16384;

/** Nearest multiple of 16 (halves round up), then clamped into the provider limits. */
export function snapSide(n: number): number {
  const snapped = Math.round(n / SIZE_STEP) * SIZE_STEP;
  return Math.min(MAX_SIDE, Math.max(MIN_SIDE, snapped));
}

export function imageSize(
  ratio: AspectRatio,
  quality: Quality,
  target?: { width: number; height: number },
): { width: number; height: number } {
  if (target) return { width: snapSide(target.width), height: snapSide(target.height) };
  const [width, height] = ASPECT_RATIOS[ratio][quality];
  return { width, height };
}
