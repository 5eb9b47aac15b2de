import { createProfilesClient } from '@social/contracts';
import type { TokenSigner } from '@social/internal-auth';
import type { CredentialSource, Credentials } from '../domain/ports';

/**
 * Credentials from the competitors service, cached briefly: a burst of due posts on one profile
 * should not cost one RPC each. A revoked token drops the entry (forget()).
 */
export function grpcCredentialSource(
  address: string,
  opts: { signer: TokenSigner; deadlineMs: number; cacheMs: number },
): CredentialSource & { close(): void } {
  const client = createProfilesClient(address, {
    signer: opts.signer,
    defaultDeadlineMs: opts.deadlineMs,
  });
  const cache = new Map<string, { at: number; value: Promise<Credentials> }>();
  const key = (workspaceId: string, profileId: string) => `${workspaceId}:${profileId}`;
  return {
    get(workspaceId, profileId) {
      const k = key(workspaceId, profileId);
      const hit = cache.get(k);
      if (hit && Date.now() - hit.at < opts.cacheMs) return hit.value;
      const value = client.call('GetPublishCredentials', { profile_id: profileId }, { workspaceId }).then((m) => ({
        net: m.net,
        accountId: m.network_account_id,
        accessToken: m.access_token,
      }));
      cache.set(k, { at: Date.now(), value });
      // A failed lookup is not remembered.
      value.catch(() => cache.get(k)?.value === value && cache.delete(k));
      if (cache.size > 10_000) cache.delete(cache.keys().next().value!);
      return value;
    },
    forget(workspaceId, profileId) {
      cache.delete(key(workspaceId, profileId));
    },
    close: () => client.close(),
  };
}
