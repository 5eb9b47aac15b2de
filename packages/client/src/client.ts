import { randomUUID } from 'node:crypto';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './schema.generated';
import { retryingFetch, type RetryOptions } from './retry';

export interface SocialClientOptions extends RetryOptions {
  /** The API root including the version, e.g. `http://127.0.0.1:8080/v2`. */
  baseUrl: string;
  apiId: string;
  apiKey: string;
  /** Sets an Idempotency-Key on every POST and stage change that has none (default true). */
  idempotencyKeys?: boolean;
  /** The fetch to send with (default: the global fetch at the time of each call). */
  fetch?: typeof fetch;
}

export type SocialClient = Client<paths>;

const STAGE_CHANGE = /\/posts\/[^/]+\/stage\/[^/]+\/?$/;

/** The operations the API makes safe to retry with an Idempotency-Key. */
export function takesIdempotencyKey(method: string, url: string): boolean {
  return method === 'POST' || (method === 'PATCH' && STAGE_CHANGE.test(new URL(url).pathname));
}

/**
 * A typed client for the API: every path, parameter, body and response is typed from the OpenAPI
 * document. Calls carry the key headers; POSTs and stage changes get an Idempotency-Key (one per
 * call, the same on every retry of that call); 429 and 503 are retried after `Retry-After`.
 */
export function createSocialClient(opts: SocialClientOptions): SocialClient {
  const send = retryingFetch((input, init) => (opts.fetch ?? globalThis.fetch)(input, init), opts);
  const client = createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers: { 'X-API-ID': opts.apiId, 'X-API-KEY': opts.apiKey },
    fetch: send,
  });
  if (opts.idempotencyKeys !== false) client.use(idempotencyKeys);
  return client;
}

const idempotencyKeys: Middleware = {
  onRequest({ request }) {
    if (takesIdempotencyKey(request.method, request.url) && !request.headers.has('idempotency-key')) {
      request.headers.set('Idempotency-Key', randomUUID());
    }
    return request;
  },
};
