import { createSocialClient, type SocialClient } from '@social/client';
import type { TestSystem } from '@social/testkit';

export interface ApiCreds {
  apiId: string;
  apiKey: string;
}

/** The published typed client, pointed at the system's gateway with a workspace's keys. */
export function apiClient(system: TestSystem, c: ApiCreds, opts: { retries?: number } = {}): SocialClient {
  return createSocialClient({ baseUrl: `${system.gatewayUrl}/v2`, apiId: c.apiId, apiKey: c.apiKey, baseDelayMs: 50, ...opts });
}
