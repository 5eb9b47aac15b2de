import { findNetwork, type NetworkCode } from '@social/networks';

/**
 * The `id` of a search result, passed back as `profileId` to POST /competitor: the network code and
 * the network's account id, `generalNet:gn-biz-1`. It names a public profile on a network, so it is
 * the same in every workspace and needs no stored search record.
 */
export interface PublicProfileRef {
  net: NetworkCode;
  accountId: string;
}

const ACCOUNT_ID = /^[A-Za-z0-9._~-]{1,128}$/;

export const encodePublicProfileId = (ref: PublicProfileRef): string => `${ref.net}:${ref.accountId}`;

/** undefined when the value is not a profile id this service hands out. */
export function decodePublicProfileId(id: string): PublicProfileRef | undefined {
  const at = id.indexOf(':');
  if (at <= 0) return undefined;
  const network = findNetwork(id.slice(0, at));
  const accountId = id.slice(at + 1);
  if (!network || !ACCOUNT_ID.test(accountId)) return undefined;
  return { net: network.code, accountId };
}
