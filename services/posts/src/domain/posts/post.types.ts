import type { NetworkKey } from './networks';

export const POST_TYPES = ['STATUS', 'MEDIA', 'STORY', 'LINK', 'REEL'] as const;
export type PostType = (typeof POST_TYPES)[number];

export const STAGES = [
  'IDEA',
  'DRAFT',
  'TEAM_REVIEW',
  'TEAM_REVISION',
  'TEAM_APPROVED',
  'CLIENT_REVIEW',
  'CLIENT_REVISION',
  'CLIENT_APPROVED',
  'SCHEDULED',
  'PUBLISHED',
  'PUBLISHED_FAILED',
  'ARCHIVE',
] as const;
export type Stage = (typeof STAGES)[number];

export const PUBLISH_STATUSES = ['PENDING', 'PUBLISHED', 'FAILED', 'CANCELLED'] as const;
export type PublishStatus = (typeof PUBLISH_STATUSES)[number];

export interface CaptionInput {
  plainText: string;
  firstComment?: { plainText: string } | null;
  net?: NetworkKey | null;
}
export interface MediaGroupInput {
  mediaFiles: { mediaLibId: string }[];
  net?: NetworkKey | null;
}
export interface LinkInput {
  link: string;
  linkTitle?: string | null;
  linkDescription?: string | null;
  mediaLibId?: string | null;
  net?: NetworkKey | null;
}

/** A network object of a request (spec 2.2), kept as given; its rules live in network-objects.rules.ts. */
export type NetworkObject = Record<string, unknown>;

/** The body of POST /posts (and, every field optional, of PUT). */
export interface PostInput {
  type: PostType;
  profileIds?: string[];
  publishAt?: string | null;
  captions?: CaptionInput[];
  medias?: MediaGroupInput[];
  links?: LinkInput[];
  briefing?: { markdown: string } | null;
  labelIds?: string[];
  generalNet?: NetworkObject | null;
  photoNet?: NetworkObject | null;
  photoNetV2?: NetworkObject | null;
  professionalNet?: NetworkObject | null;
  shortVideoNet?: NetworkObject | null;
  conversationNet?: NetworkObject | null;
  listingNet?: NetworkObject | null;
  videoNet?: NetworkObject | null;
  microblogNet?: NetworkObject | null;
}
export type PostUpdate = Partial<PostInput>;

export interface StageEntry {
  at: Date;
  operation: string;
  from: Stage | null;
  to: Stage;
  comment: string | null;
}

export interface PlanEntry {
  profileId: string;
  status: PublishStatus;
  /** The post revision this entry was planned for; a job of an older revision is stale. */
  revision: number;
  networkPostId: string | null;
  reason: string | null;
  /**
   * Why publishing failed or was cancelled for this profile, or, while PENDING, why it is not
   * settled yet (PUBLISH_OUTCOME_UNKNOWN); shown as publishError.
   */
  error?: { code: string; message: string } | null;
}

/**
 * Where the current revision of a SCHEDULED post is in publishing: WAITING for its due time, or
 * DISPATCHED (its jobs went out; from then on it cannot be changed, and the watchdog looks at it
 * until every profile is settled). Null when nothing is to be published.
 */
export interface PublishDispatch {
  state: 'WAITING' | 'DISPATCHED';
  /** When the jobs go out (WAITING) or went out (DISPATCHED). */
  dueAt: Date;
  /** The request that planned this revision (schedule, publishNow, retry, PUT): its jobs carry it. */
  requestId: string | null;
  /**
   * That request's trace context (W3C traceparent), so the dispatch, however much later, and the
   * publishing it causes continue the request's trace; null while tracing is off. Absent on
   * revisions planned before it was kept.
   */
  traceparent?: string | null;
  /** DISPATCHED: when the watchdog looks next, and how many times it has asked the publisher. */
  checkAt: Date | null;
  rounds: number;
}

/** The post as stored (what the repository returns). */
export interface PostRecord {
  id: string;
  workspaceId: string;
  type: PostType;
  stage: Stage;
  publishAt: Date | null;
  profileIds: string[];
  /** The network of each profile at the last save, so targeted networks are known without a call. */
  profileNets: Record<string, NetworkKey>;
  captions: { plainText: string; firstComment: { plainText: string } | null; net: NetworkKey | null }[];
  medias: { mediaFiles: { mediaLibId: string }[]; net: NetworkKey | null }[];
  links: { link: string; linkTitle: string | null; linkDescription: string | null; mediaLibId: string | null; net: NetworkKey | null }[];
  briefing: { markdown: string } | null;
  labelIds: string[];
  networks: Partial<Record<NetworkKey, NetworkObject>>;
  stageHistory: StageEntry[];
  /** Stage before ARCHIVE, where `restore` returns to. */
  archivedFrom: Stage | null;
  revision: number;
  plan: PlanEntry[];
  dispatch: PublishDispatch | null;
  /** Optimistic concurrency: every write is conditional on the version it read. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}
