import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { blockedReason, checkUrl, type AllowList } from './address-rules';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
/** Resolves a host name; tests plug in their own to play DNS games without a DNS server. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

export interface AddressPolicy {
  resolver: Resolver;
  allow?: AllowList;
}

/** The URL cannot be used under the rules; `reason` is shown to the user. */
export class FetchRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'FetchRefusedError';
  }
}

const isIpLiteral = (host: string) => /^[\d.]+$/.test(host) || host.includes(':');

/**
 * What is checked before a URL is accepted: the URL rules and every address its host resolves to
 * now. The connection checks again on the address it actually uses (guardedLookup).
 */
export async function precheckUrl(raw: string, policy: AddressPolicy): Promise<URL> {
  const checked = checkUrl(raw, policy.allow);
  if (!checked.ok) throw new FetchRefusedError(checked.reason);
  const host = checked.url.hostname.replace(/^\[|\]$/g, '');
  if (!isIpLiteral(host)) await resolveChecked(host, policy);
  return checked.url;
}

/** Resolves a host and refuses it when any of its addresses is not public. */
export async function resolveChecked(host: string, policy: AddressPolicy): Promise<ResolvedAddress[]> {
  let addrs: ResolvedAddress[];
  try {
    addrs = await policy.resolver(host);
  } catch {
    throw new FetchRefusedError(`host name ${host} does not resolve`);
  }
  if (addrs.length === 0) throw new FetchRefusedError(`host name ${host} does not resolve`);
  // Every address must be public: which one a connection would use is not ours to predict.
  for (const a of addrs) {
    const why = blockedReason(a.address, policy.allow);
    if (why) throw new FetchRefusedError(`host name ${host} resolves to a non-public address: ${why}`);
  }
  return addrs;
}

/**
 * A `lookup` for http(s).request / undici connect options: the connection uses only addresses that
 * pass the rules at connect time, so DNS rebinding between the check and the connect does not get
 * through. IP literals do not go through lookup, so checkUrl must have judged them first.
 */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(hostname, policy).then(
      (addrs) => {
        if (options.all)
          callback(
            null,
            addrs.map((a) => ({ address: a.address, family: a.family })),
          );
        else callback(null, addrs[0]!.address, addrs[0]!.family);
      },
      (err) => callback(err as NodeJS.ErrnoException, '', 4),
    );
  };
}
