import { publishingTraits, type AccountRef, type NetworkAdapter, type NetworkCode } from '@social/networks';
import type { Ledger, LedgerEntry } from './ports';

export interface SettleTimes {
  /**
   * How long after a publish was sent the network can no longer act on it (its own processing
   * bound, plus a margin): only after that does "not found" prove the attempt created nothing.
   */
  settleMs(net: string): number;
}

/** How far before our call a network's clock may date the post it stored. */
const CLOCK_SKEW_MS = 5 * 60_000;
/**
 * Pages of recent posts read at most (100 each). The listing is newest first, so the attempt's post
 * comes after every post published since: a reconcile reads back to the attempt, however many
 * pages that takes (a burst on one account is thousands). Only a listing longer than this is given
 * up on, and then nothing is proven: the outcome stays unknown.
 */
const MAX_PAGES = 1000;

export interface FoundPost {
  networkPostId: string;
  publishedAt: string;
}

/** When the latest call of an entry's attempt may have been sent: "not found" counts from then. */
export const lastCallOf = (entry: LedgerEntry): Date | null => entry.calledUntil ?? entry.calledAt;

/**
 * Whether the network holds the post of an attempt whose outcome is unknown: by key where the
 * network keeps keys (within its window), else among the account's recent posts, matched on the
 * attempt's content fingerprint (which leaves out per-try values such as signed media URLs).
 * Returns the post, null when it certainly does not hold it, or 'unsettled' when it does not
 * (yet) but the attempt might still land. 'unknowable' when no question can ever tell: the network
 * keeps no key for it (none, or its window passed) and the attempt recorded no fingerprint (an
 * attempt of a release before the ledger), so not finding a match proves nothing. Throws when the
 * network cannot be asked.
 */
export async function findOnNetwork(
  network: NetworkAdapter,
  ledger: Ledger,
  entry: LedgerEntry,
  creds: AccountRef,
  settle: SettleTimes,
  now: Date,
): Promise<FoundPost | null | 'unsettled' | 'unknowable'> {
  // The key window runs from the post the key created, so from the first call at the earliest.
  const calledAt = entry.calledAt ?? now;
  const lastCall = lastCallOf(entry) ?? now;
  const keys = publishingTraits(entry.net as NetworkCode).idempotency;
  let found: FoundPost | null | 'unsettled';
  if (keys.keys === 'window' && now.getTime() - calledAt.getTime() < keys.windowMs) found = await byKey(network, entry, creds);
  else if (!entry.fingerprint) return 'unknowable';
  else found = await byContent(network, ledger, entry, creds, settle, now);
  if (found) return found;
  return now.getTime() >= lastCall.getTime() + settle.settleMs(entry.net) ? null : 'unsettled';
}

/** The post held under any key the attempt sent (an attempt of an earlier release may have sent several). */
async function byKey(network: NetworkAdapter, entry: LedgerEntry, creds: AccountRef): Promise<FoundPost | null> {
  for (const idempotencyKey of entry.idempotencyKeys?.length ? entry.idempotencyKeys : [entry.key]) {
    const found = await network.lookupPublished({ ...creds, idempotencyKey });
    if (found) return found;
  }
  return null;
}

/**
 * The oldest recent post with the attempt's content that no other of our publishes owns; 'unsettled'
 * while a post with that content may be another attempt's whose own answer may still come.
 */
async function byContent(
  network: NetworkAdapter,
  ledger: Ledger,
  entry: LedgerEntry,
  creds: AccountRef,
  settle: SettleTimes,
  now: Date,
): Promise<FoundPost | null | 'unsettled'> {
  const since = new Date((entry.calledAt ?? now).getTime() - CLOCK_SKEW_MS);
  const matches: FoundPost[] = [];
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    // Not read back to `since`: the post may be on a page not read, so its absence is not shown.
    if (page === MAX_PAGES) throw new Error(`more than ${MAX_PAGES * 100} posts were published since the attempt`);
    const res = await network.recentPosts({ ...creds, since: since.toISOString(), limit: 100, ...(cursor ? { cursor } : {}) });
    matches.push(...res.items.filter((p) => p.fingerprint === entry.fingerprint));
    if (!res.nextCursor) break;
    cursor = res.nextCursor;
  }
  if (matches.length === 0) return null;
  // Another of our attempts sent the same content to this account and may still hear the network
  // name its post: a match may be that post, which it owns from then on without a claim. Taking it
  // now would show this attempt PUBLISHED with a post it did not create. Asked again once they know.
  const answerable = (await ledger.callingWithSameContent(entry)).filter(
    (o) => now.getTime() < (lastCallOf(o) ?? now).getTime() + settle.settleMs(o.net),
  );
  if (answerable.length > 0) return 'unsettled';
  matches.sort((a, b) => Date.parse(a.publishedAt) - Date.parse(b.publishedAt));
  for (const m of matches) if (await ledger.claimNetworkPost(entry.net, m.networkPostId, entry.key)) return m;
  return null;
}
