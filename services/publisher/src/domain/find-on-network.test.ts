import type { AccountRef, NetworkAdapter, RecentPostsInput } from '@social/networks';
import { findOnNetwork } from './find-on-network';
import type { Ledger, LedgerEntry } from './ports';

const now = new Date('2026-11-27T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const settle = { settleMs: () => 40_000 };
const creds = (net: string): AccountRef => ({ net: net as AccountRef['net'], accountId: 'acc-1', accessToken: 'tok' });

/** A network that holds the posts given by key and lists the ones given by fingerprint; records what it is asked. */
function network(byKey: Record<string, string> = {}, listed: { fingerprint: string; networkPostId: string }[] = []) {
  const asked = { keys: [] as string[], listings: 0 };
  const adapter = {
    async lookupPublished({ idempotencyKey }: { idempotencyKey: string }) {
      asked.keys.push(idempotencyKey);
      const id = byKey[idempotencyKey];
      return id ? { networkPostId: id, publishedAt: ago(60_000).toISOString(), replayed: true } : null;
    },
    async recentPosts(_: RecentPostsInput) {
      asked.listings += 1;
      return { items: listed.map((p) => ({ ...p, publishedAt: ago(60_000).toISOString() })), nextCursor: null };
    },
  } as unknown as NetworkAdapter;
  return { adapter, asked };
}

const ledger = {
  async callingWithSameContent() {
    return [];
  },
  async claimNetworkPost() {
    return true;
  },
} as unknown as Ledger;

/** A CALLING entry as the upgrade leaves an attempt of the release before the ledger. */
const legacy = (net: string, over: Partial<LedgerEntry> = {}): LedgerEntry => ({
  key: 'p1:prof1',
  workspaceId: 'w1',
  postId: 'p1',
  profileId: 'prof1',
  net,
  state: 'CALLING',
  revision: 2,
  attemptId: 'a1',
  attempts: 1,
  accountId: null,
  calledAt: ago(3600_000),
  fingerprint: null,
  idempotencyKeys: ['p1:prof1:1', 'p1:prof1:2'],
  calledUntil: ago(5 * 60_000),
  networkPostId: null,
  publishedAt: null,
  error: null,
  final: false,
  retryAt: null,
  ...over,
});

describe('asking the network about an attempt of the release before the ledger', () => {
  it('asks a network that keeps keys by every key that release sent', async () => {
    const { adapter, asked } = network({ 'p1:prof1:2': 'pro_1' });

    const found = await findOnNetwork(adapter, ledger, legacy('professionalNet'), creds('professionalNet'), settle, now);

    expect(found).toMatchObject({ networkPostId: 'pro_1' });
    expect(asked.keys).toEqual(['p1:prof1:1', 'p1:prof1:2']);
  });

  it('proves it absent there only once its last call can no longer land', async () => {
    const { adapter } = network();
    const entry = legacy('professionalNet', { calledUntil: ago(10_000) });

    expect(await findOnNetwork(adapter, ledger, entry, creds('professionalNet'), settle, now)).toBe('unsettled');
    expect(await findOnNetwork(adapter, ledger, entry, creds('professionalNet'), settle, new Date(now.getTime() + 30_000))).toBeNull();
  });

  it('cannot tell on a network without keys, however long ago: no content to match, so no listing proves it absent', async () => {
    const { adapter, asked } = network({}, [{ fingerprint: 'fp-x', networkPostId: 'gn_1' }]);

    const found = await findOnNetwork(adapter, ledger, legacy('generalNet'), creds('generalNet'), settle, now);

    expect(found).toBe('unknowable');
    expect(asked).toEqual({ keys: [], listings: 0 });
  });

  it('cannot tell on a network that keeps keys once the key window since its first call passed', async () => {
    const { adapter, asked } = network({ 'p1:prof1:1': 'pro_1' });
    const entry = legacy('professionalNet', { calledAt: ago(25 * 3600_000) });

    expect(await findOnNetwork(adapter, ledger, entry, creds('professionalNet'), settle, now)).toBe('unknowable');
    expect(asked.keys).toEqual([]);
  });

  it('still asks by its own key and content for an attempt of this release', async () => {
    const { adapter, asked } = network({}, [{ fingerprint: 'fp-1', networkPostId: 'gn_1' }]);
    const own = legacy('generalNet', { fingerprint: 'fp-1', accountId: 'acc-1', idempotencyKeys: null, calledUntil: null });

    expect(await findOnNetwork(adapter, ledger, own, creds('generalNet'), settle, now)).toMatchObject({ networkPostId: 'gn_1' });
    expect(asked.listings).toBe(1);
  });
});
