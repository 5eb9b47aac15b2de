import type { NetworkAdapter, NetworkCode } from '@social/networks';

/** Filters of GET /profiles and GET /competitors. */
export interface ListFilter {
  /** Case-insensitive text in name or username. */
  query?: string;
  /** Network codes (any of them). */
  nets?: string[];
}

export interface Page {
  skip: number;
  take: number;
}

export type ProfileStatusLevel = 'OK' | 'ERROR';

/** A connected own profile, without its token. */
export interface Profile {
  id: string;
  workspaceId: string;
  net: NetworkCode;
  networkAccountId: string;
  name: string;
  username: string;
  picture: string;
  statusLevel: ProfileStatusLevel;
  statusReason: string | null;
}

export interface NewProfile {
  id: string;
  net: NetworkCode;
  networkAccountId: string;
  name: string;
  username: string;
  picture: string;
  accessTokenEnc: string;
  statusLevel: ProfileStatusLevel;
  statusReason: string | null;
}

/** The details a reconnect replaces. */
export type ProfileReconnect = Pick<NewProfile, 'name' | 'username' | 'picture' | 'accessTokenEnc' | 'statusLevel' | 'statusReason'>;

/** The connected profiles of the workspaces (data/profile.repository.ts). */
export interface ProfileStore {
  /** A fresh profile id (time-ordered, so the database's order is creation order). */
  newId(): string;
  /** Null (nothing written) when the workspace already has this network account. */
  create(workspaceId: string, p: NewProfile): Promise<Profile | null>;
  findByAccount(workspaceId: string, net: string, networkAccountId: string): Promise<Profile | null>;
  /** Connected profiles of one network, oldest first. */
  findOnNet(workspaceId: string, net: string): Promise<Profile[]>;
  /** The stored (encrypted) token of a profile of the workspace; null when there is no such profile. */
  encryptedTokenOf(workspaceId: string, id: string): Promise<string | null>;
  /** Sets the status; `workspaceId` undefined only for events that name the profile without one. */
  setStatus(workspaceId: string | undefined, id: string, statusLevel: ProfileStatusLevel, reason: string | null): Promise<boolean>;
  /** A reconnect: the fresh token and profile details replace the refused ones; null when the profile is gone. */
  reconnect(workspaceId: string, id: string, fields: ProfileReconnect): Promise<Profile | null>;
  /** Oldest first. */
  list(workspaceId: string, filter: ListFilter, page: Page): Promise<{ items: Profile[]; total: number }>;
}

export type CompetitorStatusLevel = 'ACTIVE' | 'NOT_AVAILABLE';

export interface Competitor {
  id: string;
  workspaceId: string;
  /** The public profile id of GET /search/profiles (`net:accountId`). */
  profileId: string;
  net: NetworkCode;
  networkAccountId: string;
  name: string;
  username: string;
  picture: string;
  statusLevel: CompetitorStatusLevel;
}

export interface NewCompetitor {
  id: string;
  profileId: string;
  /** The plan slot the competitor holds: 0 … limit-1, unique per workspace. */
  slot: number;
  net: NetworkCode;
  networkAccountId: string;
  name: string;
  username: string;
  picture: string;
}

/** The competitors of the workspaces (data/competitor.repository.ts). */
export interface CompetitorStore {
  /** A fresh competitor id (time-ordered, so the database's order is creation order). */
  newId(): string;
  /**
   * Null (nothing written) when the profile is already a competitor of the workspace or the slot is
   * taken; the caller tells the two apart by reading the profile's record.
   */
  insert(workspaceId: string, c: NewCompetitor): Promise<Competitor | null>;
  findByProfile(workspaceId: string, profileId: string): Promise<Competitor | null>;
  findById(workspaceId: string, id: string): Promise<Competitor | null>;
  /** The plan slots the workspace's competitors hold now. */
  usedSlots(workspaceId: string): Promise<Set<number>>;
  /** Oldest first. */
  list(workspaceId: string, filter: ListFilter, page: Page): Promise<{ items: Competitor[]; total: number }>;
  /** True when this call deleted it. */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/** A collection job (backfill) or a removal, about a profile or a competitor. */
export interface CollectionEvent {
  kind: 'backfill' | 'removed';
  targetKind: 'profile' | 'competitor';
  targetId: string;
  workspaceId: string;
  net: string;
  networkAccountId: string;
  /** The backfill's days (YYYY-MM-DD), inclusive. */
  since?: string | null;
  until?: string | null;
}

/** Events recorded with the change they are about and published later (data/outbox.repository.ts). */
export interface EventOutbox {
  /** Records an event due now; its id. */
  add(event: CollectionEvent): Promise<string>;
  /** Withdraws an event whose change did not happen. */
  remove(id: string): Promise<void>;
}

/** The social networks, as far as profiles, competitors and search need them (@social/networks). */
export type NetworkClient = Pick<NetworkAdapter, 'profileInfo' | 'searchProfiles' | 'connectAccount' | 'listConnectableAccounts'>;
