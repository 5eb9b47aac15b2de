import type { Quality } from './image-sizes';

export interface GenerateRequest {
  prompt: string;
  width: number;
  height: number;
  quality: Quality;
}

/**
 * Makes an image for a prompt: encoded bytes in any format sharp reads; the caller normalizes them.
 * clients/local-image-provider.ts (no model) and clients/openai-image-provider.ts implement it.
 */
export interface ImageProvider {
  readonly name: string;
  generate(req: GenerateRequest, signal?: AbortSignal): Promise<Buffer>;
}
