import { getNetwork, isNetworkError, type NetworkCode } from '@social/networks';
import { log } from '../logger';
import {
  connectedProfileNeedsReconnect,
  noConnectedProfile,
  searchFoundNothing,
  searchFoundPersonal,
  searchNotSupported,
} from './competitors.errors';
import type { NetworkClient, ProfileStore } from './ports';
import { encodePublicProfileId } from './public-profile-id';
import type { AtRestCipher } from '@social/at-rest';

export type SearchArea = 'insights' | 'posts';

export interface SearchInput {
  net: NetworkCode;
  query: string;
  area: SearchArea;
}

export interface SearchItem {
  /** The profileId for POST /competitor. */
  id: string;
  name: string;
  username: string;
  picture: string;
}

export type SearchResult = { items: SearchItem[] } | { items: []; warning: string };

export interface SearchDeps {
  profiles: ProfileStore;
  adapter: NetworkClient;
  cipher: AtRestCipher;
}

/**
 * Spec 4.1: the search runs as a connected profile of the workspace on that network; generalNet
 * finds pages by name, the photo networks one business or creator account by exact username.
 * Finding nothing (or a personal account) is a 400 for area=insights, an empty answer with a
 * warning for area=posts.
 */
export class SearchProfiles {
  constructor(private readonly deps: SearchDeps) {}

  async search(workspaceId: string, input: SearchInput): Promise<SearchResult> {
    const deps = this.deps;
    const network = getNetwork(input.net);
    if (!network.profileSearch) throw searchNotSupported(network.name);

    const connected = await deps.profiles.findOnNet(workspaceId, input.net);
    if (connected.length === 0) throw noConnectedProfile(network.name);
    const searcher = connected.find((p) => p.statusLevel === 'OK');
    if (!searcher) throw connectedProfileNeedsReconnect(network.name);
    const encrypted = await deps.profiles.encryptedTokenOf(workspaceId, searcher.id);
    if (!encrypted) throw noConnectedProfile(network.name);

    let found;
    try {
      found = await deps.adapter.searchProfiles({
        net: input.net,
        accountId: searcher.networkAccountId,
        accessToken: deps.cipher.decrypt(encrypted),
        query: input.query,
      });
    } catch (err) {
      if (isNetworkError(err, 'AUTH_REVOKED')) {
        await deps.profiles.setStatus(workspaceId, searcher.id, 'ERROR', err.message);
        log.warn('network refused the token of a connected profile during search', { profileId: searcher.id, net: input.net });
        throw connectedProfileNeedsReconnect(network.name);
      }
      throw err;
    }

    const byUsername = network.profileSearch === 'username';
    const items = found.items
      .filter((p) => p.kind !== 'personal')
      .map((p) => ({
        id: encodePublicProfileId({ net: input.net, accountId: p.id }),
        name: p.name,
        username: p.username,
        picture: p.picture,
      }));
    if (items.length > 0) return { items };

    const problem = found.personalAccountMatch
      ? searchFoundPersonal(input.query, network.name)
      : searchFoundNothing(input.query, network.name, byUsername);
    if (input.area === 'insights') throw problem;
    return { items: [], warning: problem.message };
  }
}
