import type { Quality } from './image-sizes';

export interface GenerateRequest {
  prompt: string;
  width: number;
  height: number;
  quality: Quality;
}

/** Makes an image for a prompt: encoded bytes in any format sharp reads; the caller normalizes them. */
export interface ImageProvider {
  readonly name: string;
  generate(req: GenerateRequest, signal?: AbortSignal): Promise<Buffer>;
}
