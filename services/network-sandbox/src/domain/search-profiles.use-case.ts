import { validationError } from '@social/errors';
import { getNetwork, type NetworkCode, type SearchProfilesResult } from '@social/networks';
import { requireAccount, type SandboxContext, underFailures } from './sandbox.context';
import { notSupported } from './sandbox.errors';

export interface SearchCommand {
  net: NetworkCode;
  /** The connected account searching (spec 4.1: search needs a connected profile of the network). */
  accountId: string;
  token: string | undefined;
  query: string;
}

const MAX_RESULTS = 20;

/**
 * Spec 4.1: generalNet finds pages by name (case-insensitive substring); the photo networks find
 * exactly one username and only business or creator accounts. Personal accounts are never
 * returned; on username networks the answer says when the username was a personal account.
 */
export class SearchProfiles {
  constructor(private readonly ctx: SandboxContext) {}

  async search(cmd: SearchCommand): Promise<SearchProfilesResult> {
    const ctx = this.ctx;
    const network = getNetwork(cmd.net);
    if (!network.profileSearch) throw notSupported(`Profile search on ${network.name}`);
    const account = requireAccount(ctx, cmd.net, cmd.accountId);
    return underFailures(ctx, { operation: 'searchProfiles', net: cmd.net, accountId: account.id }, async () => {
      await ctx.tokens.requireOwner(account, cmd.token);
      const query = cmd.query.trim();
      if (query.length === 0) throw validationError([{ path: '/query/query', message: 'must not be empty' }]);
      const now = ctx.now();
      const profile = (a: Parameters<typeof ctx.directory.profileOf>[0]) => ctx.directory.profileOf(a, ctx.publicUrl(), now);

      if (network.profileSearch === 'name') {
        const needle = query.toLowerCase();
        const items = ctx.directory
          .list(cmd.net)
          .filter((a) => a.kind !== 'personal' && a.name.toLowerCase().includes(needle))
          .sort((a, b) => a.name.localeCompare(b.name))
          .slice(0, MAX_RESULTS)
          .map(profile);
        return { items, personalAccountMatch: false };
      }

      const found = ctx.directory.findByUsername(cmd.net, query.replace(/^@/, ''));
      if (!found) return { items: [], personalAccountMatch: false };
      if (found.kind === 'personal') return { items: [], personalAccountMatch: true };
      return { items: [profile(found)], personalAccountMatch: false };
    });
  }
}
