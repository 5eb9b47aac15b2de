import type { PublishCompleted, PublishRequested } from '@social/contracts';

/** A post as one profile's network receives it (posts.v1.PostForPublishing, decoded). */
export interface PostContent {
  postId: string;
  profileId: string;
  revision: number;
  type: string;
  stage: string;
  net: string;
  caption: string | null;
  firstComment: string | null;
  mediaLibIds: string[];
  links: { link: string; title: string | null; description: string | null; mediaLibId: string | null }[];
  settings: Record<string, unknown> | null;
  /** PENDING, PUBLISHED, FAILED, CANCELLED, or '' when the profile has no plan entry. */
  publishStatus: string;
}

export interface PostSource {
  /** Rejects with an AppError NOT_FOUND when the post (or its profile) is gone. */
  get(workspaceId: string, job: { postId: string; profileId: string; revision: number }): Promise<PostContent>;
}

export interface MediaFile {
  id: string;
  status: string;
  mimeType: string;
  url: string;
  sizeBytes: number | null;
  durationSec: number | null;
  width: number | null;
  height: number | null;
}

export interface MediaSource {
  /** Media of the workspace by id; ids not found are absent. */
  batchGet(workspaceId: string, ids: string[]): Promise<Map<string, MediaFile>>;
}

export interface Credentials {
  net: string;
  accountId: string;
  accessToken: string;
}

export interface CredentialSource {
  get(workspaceId: string, profileId: string): Promise<Credentials>;
  forget(workspaceId: string, profileId: string): void;
}

export interface JobMeta {
  workspaceId: string | null;
  correlationId: string;
}

/** Where outcomes and follow-ups go (the broker in the service, arrays in unit tests). */
export interface JobOutbox {
  result(result: PublishCompleted, meta: JobMeta): Promise<void>;
  retryLater(job: PublishRequested, delayMs: number, meta: JobMeta): Promise<void>;
  authRevoked(profileId: string, net: string, reason: string, meta: JobMeta): Promise<void>;
}
