import { AppError, validationError } from '@social/errors';
import { findNetwork, isNetworkError, PUBLISHING_NETWORK_CODES, type NetworkCode } from '@social/networks';
import { log } from '../logger';
import { backfillWindow } from './collection-window';
import { accountNotConnectable } from './competitors.errors';
import type { EventOutbox, ListFilter, NetworkClient, Page, Profile, ProfileStatusLevel, ProfileStore } from './ports';
import type { AtRestCipher } from '@social/at-rest';

export interface ProfilesDeps {
  profiles: ProfileStore;
  adapter: NetworkClient;
  cipher: AtRestCipher;
  outbox: EventOutbox;
  backfillDays: number;
  /** Called after an event was recorded, so it goes out now rather than at the next relay tick. */
  eventsRecorded: () => void;
}

const ACCOUNT_ID = /^[A-Za-z0-9._~-]{1,128}$/;

/** The connected own profiles of a workspace. */
export class ProfilesUseCases {
  constructor(private readonly deps: ProfilesDeps) {}

  /**
   * Connects an own network account (the admin command line). The network's consent step gives an
   * access token; a profile-info read with that token tells whether the network accepts it (OK) or
   * refuses it (ERROR). Connecting a connected account again returns the profile; when it is in ERROR
   * the fresh token replaces the refused one (a reconnect).
   */
  async connect(workspaceId: string, input: { net: string; networkAccountId: string }): Promise<Profile> {
    const deps = this.deps;
    const network = findNetwork(input.net);
    const problems = [];
    if (!network) problems.push({ path: '/net', message: 'must be a network code such as generalNet' });
    if (!ACCOUNT_ID.test(input.networkAccountId)) problems.push({ path: '/network_account_id', message: 'must be a network account id' });
    if (!network || problems.length > 0) throw validationError(problems);
    const net = network.code;

    const existing = await deps.profiles.findByAccount(workspaceId, net, input.networkAccountId);
    if (existing && existing.statusLevel === 'OK') return existing;

    const { accessToken, profile } = await obtainToken(deps.adapter, net, input.networkAccountId);
    const status = await tokenStatus(deps.adapter, net, input.networkAccountId, accessToken);
    const fields = {
      name: profile.name,
      username: profile.username,
      picture: profile.picture,
      accessTokenEnc: deps.cipher.encrypt(accessToken),
      statusLevel: status.level,
      statusReason: status.reason,
    };
    if (existing) {
      const updated = (await deps.profiles.reconnect(workspaceId, existing.id, fields)) ?? existing;
      if (status.level === 'OK') await this.requestBackfill(updated);
      log.info('profile reconnected', { profileId: existing.id, net, statusLevel: status.level });
      return updated;
    }
    const id = deps.profiles.newId();
    // The job is recorded before the profile, so a crash in between cannot lose it (the relay drops
    // a job whose profile never appeared). Collection only makes sense with an accepted token.
    const eventId =
      status.level === 'OK'
        ? await deps.outbox.add({
            kind: 'backfill',
            targetKind: 'profile',
            targetId: id,
            workspaceId,
            net,
            networkAccountId: input.networkAccountId,
            ...backfillWindow(deps.backfillDays),
          })
        : undefined;
    let created;
    try {
      created = await deps.profiles.create(workspaceId, { id, net, networkAccountId: input.networkAccountId, ...fields });
    } catch (err) {
      if (eventId) await deps.outbox.remove(eventId);
      throw err;
    }
    if (created) {
      if (eventId) deps.eventsRecorded();
      log.info('profile connected', { profileId: created.id, net, statusLevel: status.level });
      return created;
    }
    if (eventId) await deps.outbox.remove(eventId);
    // A concurrent connect of the same account won; its profile is the one.
    const winner = await deps.profiles.findByAccount(workspaceId, net, input.networkAccountId);
    if (!winner) throw new Error(`a concurrent connect of ${net} account ${input.networkAccountId} left no profile behind`);
    return winner;
  }

  /** One own account of each publishing network (the first the network lists), for trying things out. */
  async connectSandbox(workspaceId: string): Promise<Profile[]> {
    const list = this.deps.adapter.listConnectableAccounts?.bind(this.deps.adapter);
    if (!list) throw new AppError('CONNECT_NOT_SUPPORTED', 400, 'This network adapter cannot list connectable accounts.');
    const connected: Profile[] = [];
    for (const net of PUBLISHING_NETWORK_CODES) {
      const [first] = await list(net);
      if (!first) throw new AppError('NO_CONNECTABLE_ACCOUNT', 400, `${net} offers no own account to connect.`);
      connected.push(await this.connect(workspaceId, { net, networkAccountId: first.id }));
    }
    return connected;
  }

  async list(workspaceId: string, filter: ListFilter, page: Page) {
    return this.deps.profiles.list(workspaceId, filter, page);
  }

  private async requestBackfill(p: Profile): Promise<void> {
    await this.deps.outbox.add({
      kind: 'backfill',
      targetKind: 'profile',
      targetId: p.id,
      workspaceId: p.workspaceId,
      net: p.net,
      networkAccountId: p.networkAccountId,
      ...backfillWindow(this.deps.backfillDays),
    });
    this.deps.eventsRecorded();
  }
}

async function obtainToken(adapter: NetworkClient, net: NetworkCode, accountId: string) {
  if (!adapter.connectAccount) {
    throw new AppError('CONNECT_NOT_SUPPORTED', 400, 'This network adapter has no way to connect accounts.');
  }
  try {
    return await adapter.connectAccount({ net, accountId });
  } catch (err) {
    if (isNetworkError(err, 'NOT_FOUND')) {
      throw new AppError('ACCOUNT_NOT_FOUND', 404, `${net} has no account ${accountId}.`, {
        details: [{ path: '/network_account_id', message: 'does not exist on this network' }],
      });
    }
    if (isNetworkError(err, 'REJECTED')) throw accountNotConnectable(accountId, err.message);
    throw err;
  }
}

/** ERROR when the network refuses the token; other failures (busy, down) are not an answer and propagate. */
async function tokenStatus(
  adapter: NetworkClient,
  net: NetworkCode,
  accountId: string,
  accessToken: string,
): Promise<{ level: ProfileStatusLevel; reason: string | null }> {
  try {
    await adapter.profileInfo({ net, profileId: accountId, accessToken });
    return { level: 'OK', reason: null };
  } catch (err) {
    if (isNetworkError(err, 'AUTH_REVOKED')) return { level: 'ERROR', reason: err.message };
    throw err;
  }
}
