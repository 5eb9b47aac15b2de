import type { GenerateRequest, ImageProvider } from '../domain/generation/ports';

export interface OpenAiProviderOptions {
  /** Base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1. */
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

export class ProviderError extends Error {}

/** Calls `POST {baseUrl}/images/generations` of an OpenAI-compatible API and returns the image bytes. */
export class OpenAiImageProvider implements ImageProvider {
  readonly name = 'openai';

  constructor(private readonly options: OpenAiProviderOptions) {}

  async generate(req: GenerateRequest): Promise<Buffer> {
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/images/generations`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.options.apiKey}` },
        body: JSON.stringify({
          model: this.options.model,
          prompt: req.prompt,
          n: 1,
          size: `${req.width}x${req.height}`,
          quality: req.quality,
          response_format: 'b64_json',
        }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (err) {
      throw new ProviderError(`the images endpoint is not reachable (${(err as Error).message})`);
    }
    const text = await res.text();
    if (!res.ok) {
      let message = text.slice(0, 200);
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        // not JSON; keep the text
      }
      throw new ProviderError(`the images endpoint answered HTTP ${res.status}: ${message}`);
    }
    let b64: unknown;
    try {
      b64 = (JSON.parse(text) as { data?: { b64_json?: unknown }[] }).data?.[0]?.b64_json;
    } catch {
      throw new ProviderError('the images endpoint answered with invalid JSON');
    }
    if (typeof b64 !== 'string' || b64.length === 0) throw new ProviderError('the images endpoint returned no image (data[0].b64_json)');
    return Buffer.from(b64, 'base64');
  }
}
