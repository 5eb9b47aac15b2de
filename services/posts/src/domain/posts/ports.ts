import type { PostRecord, PostType, Stage } from './post.types';

export interface PostFilter {
  since?: Date;
  /** Exclusive. */
  until?: Date;
  stages?: Stage[];
  types?: PostType[];
  profileIds?: string[];
  labelIds?: string[];
  search?: string;
}

/** Posts by id, every write a compare-and-set on `version` (data/post.repository.ts). */
export interface PostStore {
  /** A fresh post id (time-ordered, so the database's order is creation order). */
  newId(): string;
  insert(post: PostRecord): Promise<void>;
  get(workspaceId: string, id: string): Promise<PostRecord | null>;
  /** False when the post changed since it was read at `expectedVersion`. */
  replace(post: PostRecord, expectedVersion: number): Promise<boolean>;
  delete(workspaceId: string, id: string, expectedVersion: number): Promise<boolean>;
}

/** A workspace's posts, filtered and paged (data/post-list.index.ts). */
export interface PostList {
  list(workspaceId: string, filter: PostFilter, page: { skip: number; take: number }): Promise<{ items: PostRecord[]; total: number }>;
}

export interface MediaItem {
  id: string;
  status: string;
  mimeType: string;
  /** IMAGE, GIF, VIDEO or AUDIO. */
  kind: string;
  sizeBytes: number | null;
  durationSec: number | null;
  url: string | null;
}

/** The media library of a workspace, as far as posts needs it. */
export interface MediaDirectory {
  /** Media of the workspace by id; ids not in the workspace are absent. */
  batchGet(workspaceId: string, ids: string[]): Promise<Map<string, MediaItem>>;
  close(): void;
}

export interface ProfileItem {
  id: string;
  name: string;
  username: string;
  picture: string;
  net: { code: string; name: string } | null;
  publishReady: boolean;
  statusLevel: string;
}

/** The workspace's connected own profiles, as far as posts needs them. */
export interface ProfileDirectory {
  /** Own profiles of the workspace by id; ids not in the workspace are absent. */
  getProfiles(workspaceId: string, ids: string[]): Promise<Map<string, ProfileItem>>;
  close(): void;
}
