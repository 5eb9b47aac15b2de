import { AppError, ErrorCodes, notFound, validationError, type ErrorDetail } from '@social/errors';
import { postStageChangedEvent } from '@social/contracts';
import { currentTraceparent, type EventEmitter } from '@social/events';
import { getContext } from '@social/logger';
import type { LabelStore } from '../labels/ports';
import { NETWORK_KEYS, type NetworkKey } from './networks';
import { checkPost, referencedMediaIds, type PostContent, type RuleMode } from './post.rules';
import type { PlanEntry, PostInput, PostRecord, PostUpdate, PublishDispatch, Stage } from './post.types';
import type { MediaDirectory, PostFilter, PostList, PostStore, ProfileDirectory } from './ports';
import { postView, type ViewLookups } from './post.view';

import { isBeingPublished, nextStage, protectedStage, type StageOperation } from './stage-machine';

/** Publishing's part in post changes (services/posts/src/domain/publishing). */
export interface PublishingHooks {
  /** publishNow/retry were saved: dispatch now rather than on the next tick (which is the safety net). */
  dispatchNow(post: PostRecord): void;
}

export interface PostsDeps {
  posts: PostStore;
  listIndex: PostList;
  labels: LabelStore;
  media: MediaDirectory;
  profiles: ProfileDirectory;
  publishing?: PublishingHooks;
  /** Domain events for webhooks, sent after the write; never fails the request. */
  events?: EventEmitter;
  now?: () => Date;
}

type View = Record<string, unknown>;

const concurrentChange = () =>
  new AppError(ErrorCodes.CONFLICT, 409, 'The post was changed by another request at the same time; read it again and retry.');

/** A revision waiting to be dispatched at `dueAt`, on behalf of the request planning it. */
const waitingFor = (dueAt: Date): PublishDispatch => ({
  state: 'WAITING',
  dueAt,
  requestId: getContext().requestId ?? null,
  traceparent: currentTraceparent(),
  checkAt: null,
  rounds: 0,
});

/** Request content → stored content, with the optional parts normalised to null/empty. */
function contentOf(input: PostUpdate, base: PostContent & Pick<PostRecord, 'briefing'>) {
  const networks = { ...base.networks };
  for (const net of NETWORK_KEYS) {
    if (!(net in input)) continue;
    const o = input[net];
    if (o) networks[net] = o;
    else delete networks[net];
  }
  return {
    type: input.type ?? base.type,
    profileIds: input.profileIds ?? base.profileIds,
    captions: input.captions
      ? input.captions.map((c) => ({ plainText: c.plainText, firstComment: c.firstComment ?? null, net: c.net ?? null }))
      : base.captions,
    medias: input.medias
      ? input.medias.map((g) => ({ mediaFiles: g.mediaFiles.map((f) => ({ mediaLibId: f.mediaLibId })), net: g.net ?? null }))
      : base.medias,
    links: input.links
      ? input.links.map((k) => ({
          link: k.link,
          linkTitle: k.linkTitle ?? null,
          linkDescription: k.linkDescription ?? null,
          mediaLibId: k.mediaLibId ?? null,
          net: k.net ?? null,
        }))
      : base.links,
    labelIds: input.labelIds ?? base.labelIds,
    briefing: 'briefing' in input ? (input.briefing ?? null) : base.briefing,
    networks,
  };
}

const EMPTY: PostContent & Pick<PostRecord, 'briefing'> = {
  type: 'STATUS',
  profileIds: [],
  captions: [],
  medias: [],
  links: [],
  labelIds: [],
  briefing: null,
  networks: {},
};

export class PostsUseCases {
  private readonly now: () => Date;

  constructor(private readonly d: PostsDeps) {
    this.now = d.now ?? (() => new Date());
  }

  async create(workspaceId: string, input: PostInput): Promise<View> {
    const content = contentOf(input, EMPTY);
    const { profileNets, lookups } = await this.check(workspaceId, content, 'save');
    const now = this.now();
    const publishAt = input.publishAt ? new Date(input.publishAt) : null;
    const stage: Stage = publishAt ? 'DRAFT' : 'IDEA';
    const post: PostRecord = {
      id: this.d.posts.newId(),
      workspaceId,
      ...content,
      stage,
      publishAt,
      profileNets,
      stageHistory: [{ at: now, operation: 'create', from: null, to: stage, comment: null }],
      archivedFrom: null,
      revision: 0,
      plan: [],
      dispatch: null,
      version: 0,
      createdAt: now,
      updatedAt: now,
    };
    await this.d.posts.insert(post);
    return postView(post, lookups);
  }

  async get(workspaceId: string, id: string): Promise<View> {
    return this.view(workspaceId, await this.load(workspaceId, id));
  }

  async list(workspaceId: string, filter: PostFilter, page: { skip: number; take: number }) {
    const { items, total } = await this.d.listIndex.list(workspaceId, filter, page);
    const lookups = await this.lookups(workspaceId, items);
    return { items: items.map((p) => postView(p, lookups)), total, skip: page.skip, take: page.take };
  }

  async update(workspaceId: string, id: string, patch: PostUpdate): Promise<View> {
    const post = await this.load(workspaceId, id);
    const now = this.now();
    if (post.stage === 'PUBLISHED') {
      throw new AppError(ErrorCodes.PROTECTED_STAGE, 409, 'A published post cannot be changed.');
    }
    if (isBeingPublished(post, now)) throw protectedStage('an update');
    if (post.stage === 'ARCHIVE') {
      throw new AppError(ErrorCodes.PROTECTED_STAGE, 409, 'An archived post cannot be changed; restore it first.');
    }
    const content = contentOf(patch, post);
    const publishAt = 'publishAt' in patch ? (patch.publishAt ? new Date(patch.publishAt) : null) : post.publishAt;
    const scheduled = post.stage === 'SCHEDULED';
    const timeProblems: ErrorDetail[] = [];
    if (scheduled && !publishAt)
      timeProblems.push({ path: '/publishAt', message: 'a SCHEDULED post needs publishAt; unschedule it first' });
    else if (scheduled && 'publishAt' in patch && publishAt!.getTime() <= now.getTime()) {
      timeProblems.push({ path: '/publishAt', message: 'must be in the future for a SCHEDULED post; use publishNow to publish at once' });
    }
    const { profileNets, lookups } = await this.check(workspaceId, content, scheduled ? 'publish' : 'save', timeProblems);

    let stage = post.stage;
    if (stage === 'IDEA' && publishAt) stage = 'DRAFT';
    else if (stage === 'DRAFT' && !publishAt) stage = 'IDEA';
    const next: PostRecord = {
      ...post,
      ...content,
      publishAt,
      profileNets,
      stage,
      stageHistory:
        stage === post.stage
          ? post.stageHistory
          : [...post.stageHistory, { at: now, operation: 'update', from: post.stage, to: stage, comment: null }],
      version: post.version + 1,
      updatedAt: now,
    };
    // A scheduled post follows its new content and time: a new revision, waiting for its new time.
    if (scheduled) Object.assign(next, this.plan(post, next.profileIds), { dispatch: waitingFor(publishAt!) });
    await this.save(next, post.version);
    if (stage !== post.stage) this.stageChanged(next, post.stage, 'update', now);
    return postView(next, lookups);
  }

  async validate(workspaceId: string, id: string): Promise<{ valid: true }> {
    const post = await this.load(workspaceId, id);
    await this.check(workspaceId, post, 'publish');
    return { valid: true };
  }

  async delete(workspaceId: string, id: string): Promise<{ success: true }> {
    const post = await this.load(workspaceId, id);
    if (isBeingPublished(post, this.now())) throw protectedStage('deleting it');
    if (!(await this.d.posts.delete(workspaceId, id, post.version))) throw await this.lostRace(workspaceId, id, 'deleting it');
    return { success: true };
  }

  async changeStage(workspaceId: string, id: string, op: StageOperation, comment: string | null): Promise<View> {
    const post = await this.load(workspaceId, id);
    const now = this.now();
    const to = nextStage(op, post, now);
    const next: PostRecord = {
      ...post,
      stage: to,
      stageHistory: [...post.stageHistory, { at: now, operation: op, from: post.stage, to, comment }],
      version: post.version + 1,
      updatedAt: now,
    };
    switch (op) {
      case 'schedule': {
        const problems: ErrorDetail[] = [];
        if (!post.publishAt) problems.push({ path: '/publishAt', message: 'is required to schedule; set it with PUT or use publishNow' });
        else if (post.publishAt.getTime() <= now.getTime()) {
          problems.push({ path: '/publishAt', message: 'is in the past; change it with PUT or use publishNow' });
        }
        next.profileNets = (await this.check(workspaceId, post, 'publish', problems)).profileNets;
        Object.assign(next, this.plan(post, post.profileIds), { dispatch: waitingFor(post.publishAt!) });
        break;
      }
      case 'publishNow':
      case 'retry':
        next.profileNets = (await this.check(workspaceId, post, 'publish')).profileNets;
        next.publishAt = now;
        Object.assign(next, this.plan(post, post.profileIds), { dispatch: waitingFor(now) });
        break;
      case 'unschedule':
        next.revision = post.revision + 1;
        next.plan = post.plan.map((e) => (e.status === 'PENDING' ? { ...e, status: 'CANCELLED', revision: next.revision } : e));
        next.dispatch = null;
        break;
      case 'archive':
        next.archivedFrom = post.stage;
        break;
      case 'restore':
        next.archivedFrom = null;
        break;
      default:
        break;
    }
    await this.save(next, post.version);
    if (to !== post.stage) this.stageChanged(next, post.stage, op, now);
    if (op === 'publishNow' || op === 'retry') this.d.publishing?.dispatchNow(next);
    return this.view(workspaceId, next);
  }

  private stageChanged(post: PostRecord, from: Stage, operation: string, at: Date): void {
    this.d.events?.emit(
      postStageChangedEvent,
      { postId: post.id, from, to: post.stage, operation, at: at.toISOString(), postVersion: post.version },
      post.workspaceId,
    );
  }

  /**
   * Writes the post if nobody changed it since it was read. A compare-and-set that fails lost to
   * another request, or to the dispatcher claiming the post at its due time: then it is 409
   * PROTECTED_STAGE, and nothing of this request reaches the network.
   */
  private async save(next: PostRecord, readVersion: number): Promise<void> {
    if (!(await this.d.posts.replace(next, readVersion))) throw await this.lostRace(next.workspaceId, next.id, 'the change');
  }

  private async lostRace(workspaceId: string, id: string, what: string): Promise<AppError> {
    const now = await this.d.posts.get(workspaceId, id);
    return now && isBeingPublished(now, this.now()) ? protectedStage(what) : concurrentChange();
  }

  /**
   * The publish plan of a new revision: one PENDING entry per profile, except profiles that already
   * published this post (a PUBLISHED_FAILED post published again only retries the others).
   */
  private plan(post: PostRecord, profileIds: string[]): { revision: number; plan: PlanEntry[] } {
    const revision = post.revision + 1;
    const published = new Map(post.plan.filter((e) => e.status === 'PUBLISHED').map((e) => [e.profileId, e]));
    return {
      revision,
      plan: profileIds.map(
        (profileId) => published.get(profileId) ?? { profileId, status: 'PENDING', revision, networkPostId: null, reason: null },
      ),
    };
  }

  private async load(workspaceId: string, id: string): Promise<PostRecord> {
    const post = await this.d.posts.get(workspaceId, id);
    if (!post) throw notFound('The post');
    return post;
  }

  /** Runs every rule (one call per neighbour) and throws one 400 listing all problems. */
  private async check(
    workspaceId: string,
    content: PostContent,
    mode: RuleMode,
    extra: ErrorDetail[] = [],
  ): Promise<{ profileNets: Record<string, NetworkKey>; lookups: ViewLookups }> {
    const [profiles, media, labels] = await Promise.all([
      this.d.profiles.getProfiles(workspaceId, content.profileIds),
      this.d.media.batchGet(workspaceId, referencedMediaIds(content)),
      this.d.labels.findMany(workspaceId, [...new Set(content.labelIds)]),
    ]);
    const problems = [...extra, ...checkPost(content, { mode, profiles, media, labelIds: new Set(labels.map((l) => l.id)) })];
    if (problems.length > 0) {
      throw validationError(problems, mode === 'publish' ? 'The post cannot be published as it is.' : 'The post is not valid.');
    }
    const profileNets: Record<string, NetworkKey> = {};
    for (const id of content.profileIds) profileNets[id] = profiles.get(id)!.net!.code as NetworkKey;
    // What the rules looked up is what the response shows: no second round of calls.
    return { profileNets, lookups: { profiles, media, labels: new Map(labels.map((l) => [l.id, l])) } };
  }

  private async view(workspaceId: string, post: PostRecord): Promise<View> {
    return postView(post, await this.lookups(workspaceId, [post]));
  }

  /** Profiles, media and labels of a page of posts, one call each. */
  private async lookups(workspaceId: string, posts: PostRecord[]): Promise<ViewLookups> {
    const profileIds = [...new Set(posts.flatMap((p) => p.profileIds))];
    const mediaIds = [...new Set(posts.flatMap((p) => p.medias.flatMap((g) => g.mediaFiles.map((f) => f.mediaLibId))))];
    const labelIds = [...new Set(posts.flatMap((p) => p.labelIds))];
    const [profiles, media, labels] = await Promise.all([
      this.d.profiles.getProfiles(workspaceId, profileIds),
      this.d.media.batchGet(workspaceId, mediaIds),
      this.d.labels.findMany(workspaceId, labelIds),
    ]);
    return { profiles, media, labels: new Map(labels.map((l) => [l.id, l])) };
  }
}
