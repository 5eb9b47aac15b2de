import { createSocialClient, type SocialClient } from '@social/client';
import type { TestSystem } from '@social/testkit';

export interface ApiCreds {
  apiId: string;
  apiKey: string;
}

/**
 * The published typed client, pointed at the system's gateway with a workspace's keys. It retries
 * 429 and 503 like any client would; a test that asserts a 429, a 503 or a Retry-After passes
 * `retries: 0`, so that the answer it checks is the first one and no failure is retried away.
 */
export function apiClient(system: TestSystem, c: ApiCreds, opts: { retries?: number } = {}): SocialClient {
  return createSocialClient({ baseUrl: `${system.gatewayUrl}/v2`, apiId: c.apiId, apiKey: c.apiKey, baseDelayMs: 50, ...opts });
}

/**
 * A typed call's outcome as the status and the body (the data on 2xx, the API's error body
 * otherwise), for assertions that compare both at once.
 */
export function outcome<D, E>(r: { data?: D; error?: E; response: Response }): { status: number; body: D | E | undefined } {
  return { status: r.response.status, body: r.data ?? r.error };
}

/** Signed storage addresses carry PUBLIC_BASE_URL (the default gateway address); this system's gateway is on another port. */
export function viaGateway(system: TestSystem, signed: string): string {
  const u = new URL(signed);
  return `${system.gatewayUrl}${u.pathname}${u.search}`;
}
