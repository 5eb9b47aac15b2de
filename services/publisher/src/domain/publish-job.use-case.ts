import { publishJobKey, type PublishCompleted, type PublishRequested } from '@social/contracts';
import { AppError, ErrorCodes } from '@social/errors';
import { retryDelay } from '@social/events';
import { publishOutcomes } from '@social/metrics';
import {
  isNetworkCode,
  NetworkError,
  type AccountRef,
  type NetworkAdapter,
  type PublishPost,
  type PublishResult,
} from '@social/networks';
import type { Attempt, AttemptRepository, AttemptStart } from '../data/attempt.repository';
import { jobLog as log } from '../logger';
import type { CredentialSource, JobMeta, JobOutbox, MediaSource, PostContent, PostSource } from './ports';

export interface PublishJobDeps {
  ledger: AttemptRepository;
  posts: PostSource;
  media: MediaSource;
  credentials: CredentialSource;
  network: NetworkAdapter;
  outbox: JobOutbox;
  maxAttempts: number;
  retry: { baseMs: number; maxMs: number };
}

/** What names one job: its key (post, profile, revision) and its network. */
export type JobRef = Pick<PublishRequested, 'postId' | 'profileId' | 'revision' | 'net'>;

/** Starts `fn` now; `value()` gives its result or throws its error later, and an outcome nobody
 *  asks for is never an unhandled rejection. */
function settled<T>(fn: () => Promise<T>): { value(): Promise<T> } {
  const outcome = (async () => fn())().then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e }),
  );
  return {
    async value() {
      const o = await outcome;
      if (!o.ok) throw o.e;
      return o.v;
    },
  };
}

/** A ledger entry settled without a result: the job was superseded, its successor reports. */
const STALE_REVISION = 'STALE_REVISION';

/** A failure that retrying cannot fix: the profile is FAILED at once with this code. */
class JobFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Dependencies of the job (posts, media, competitors) that are down or slow: retry later. */
const DEPENDENCY_DOWN = new Set<string>([ErrorCodes.SERVICE_UNAVAILABLE, ErrorCodes.DEADLINE_EXCEEDED, 'BROKER_UNAVAILABLE']);
const isDependencyDown = (err: unknown) =>
  err instanceof AppError && !(err instanceof NetworkError) && (DEPENDENCY_DOWN.has(err.code) || err.status === 503 || err.status === 504);
const outcomes = publishOutcomes();
const isNotFound = (err: unknown) => err instanceof AppError && !(err instanceof NetworkError) && err.status === 404;

/**
 * One publish job: post content at the job's revision, its media and the profile's credentials;
 * the attempt is recorded in the ledger under the job key before the network is called with that
 * same key as its idempotency key, so no copy of the job can publish twice. Outcomes:
 * - published (or found by lookup) → PUBLISHED result;
 * - retryable (rate limit, 5xx, timeout, a neighbour down) → the job comes back later through the
 *   delay queue, until maxAttempts;
 * - permanent (rejected, revoked token, missing media) → FAILED result at once;
 * - stale revision → dropped, or CANCELLED when the post's plan cancelled the profile.
 */
export class PublishJob {
  constructor(private readonly d: PublishJobDeps) {}

  async handle(job: PublishRequested, meta: JobMeta): Promise<void> {
    const attempt = job.attempt ?? 1;
    log.info('publish job started', { key: publishJobKey(job), net: job.net, attempt, mode: job.mode ?? 'publish' });
    if (job.mode === 'reconcile') {
      const existing = await this.d.ledger.get(publishJobKey(job));
      if (existing && existing.state !== 'STARTED') return this.emitFrom(job, existing, meta);
      return this.reconcileOnly(job, existing, meta);
    }
    // The post and the credentials are read while the key is claimed: the round trips overlap,
    // and nothing reaches the network before the claim is in the ledger. Their errors count only
    // where they did before (a stale job is dropped even if its profile lost its credentials).
    const reading = settled(() => this.d.posts.get(this.ws(meta), job));
    const credentials = settled(() => this.credentials(job, meta));
    // Claim the key first (one write on the common path): a copy of a finished job stops here.
    const begun = await this.d.ledger.insert(this.start(job, meta, attempt), 'STARTED');
    if (!begun.created && begun.attempt.state !== 'STARTED') return this.emitFrom(job, begun.attempt, meta);

    try {
      let post: PostContent;
      if (begun.created) post = await reading.value();
      else {
        // Crashed mid-call, an earlier try failed or timed out, or a copy runs elsewhere right now:
        // ask the network before anything else (and read the post again afterwards).
        const found = await this.lookup(job, meta);
        if (found) return await this.published(job, found, attempt, meta);
        await this.d.ledger.touch(begun.attempt.key, attempt);
        post = await this.d.posts.get(this.ws(meta), job);
      }
      if (post.revision !== job.revision || post.publishStatus !== 'PENDING') return await this.stale(job, post, meta);
      const creds = begun.created ? await credentials.value() : await this.credentials(job, meta);
      const content = await this.content(post, meta);
      const result = await this.publishOrReconcile(job, creds, content);
      return await this.published(job, result, attempt, meta);
    } catch (err) {
      return this.onError(job, err, attempt, meta);
    }
  }

  /** The job crashed on its last delivery: settle the profile (the ledger's truth, else FAILED). */
  async poisoned(job: PublishRequested, err: unknown, meta: JobMeta): Promise<void> {
    const error = { code: 'PUBLISH_JOB_FAILED', message: `The publish job could not be processed: ${(err as Error)?.message ?? String(err)}` };
    try {
      const existing = await this.d.ledger.get(publishJobKey(job));
      const found = existing?.state === 'STARTED' ? await this.lookup(job, meta).catch(() => null) : null;
      if (found) return await this.published(job, found, job.attempt ?? 1, meta);
      await this.failed(job, error, job.attempt ?? 1, meta);
    } catch (ledgerErr) {
      log.warn('ledger unreachable while failing a poisoned job', { key: publishJobKey(job), message: (ledgerErr as Error).message });
      await this.emit(job, { status: 'FAILED', error, attempts: job.attempt ?? 1 }, meta);
    }
  }

  /**
   * A job whose envelope failed validation but still names its key and workspace. Nothing of it is
   * trusted enough to publish; its key is claimed as FAILED (so a valid copy arriving later cannot
   * publish either: it finds the FAILED attempt and re-emits it) and the profile is failed at once.
   * A key already finished re-emits what the ledger holds; one STARTED is held by a valid copy (or
   * its redelivery), which reports.
   */
  async invalid(job: JobRef, reason: string, meta: JobMeta): Promise<void> {
    const error = { code: 'INVALID_PUBLISH_JOB', message: `The publish job is not valid (${reason}); nothing was published.` };
    const r = await this.d.ledger.insert(this.start(job, meta, 1), 'FAILED', error);
    if (!r.created && r.attempt.state === 'STARTED') {
      log.warn('invalid copy of a job another worker holds; leaving it to that copy', { key: publishJobKey(job) });
      return;
    }
    if (r.created) log.warn('invalid publish job: profile failed', { key: publishJobKey(job), reason });
    return this.emitFrom(job, r.attempt, meta);
  }

  private async publishOrReconcile(job: PublishRequested, creds: AccountRef, post: PublishPost) {
    const key = publishJobKey(job);
    try {
      return await this.d.network.publish({ ...creds, idempotencyKey: key, post });
    } catch (err) {
      if (!(err instanceof NetworkError) || err.kind !== 'UNKNOWN_OUTCOME') throw err;
      log.warn('publish outcome unknown; asking the network', { key, message: err.message });
      const found = await this.d.network.lookupPublished({ ...creds, idempotencyKey: key });
      if (found) return found;
      throw err; // not there: retry later with the same key (safe on the network side)
    }
  }

  private async onError(job: PublishRequested, err: unknown, attempt: number, meta: JobMeta): Promise<void> {
    if (err instanceof JobFailure) return this.failed(job, { code: err.code, message: err.message }, attempt, meta);
    if (err instanceof NetworkError) {
      if (err.kind === 'AUTH_REVOKED') {
        this.d.credentials.forget(this.ws(meta), job.profileId);
        await this.d.outbox.authRevoked(job.profileId, job.net, err.message, meta);
        return this.failed(job, { code: err.code, message: err.message }, attempt, meta);
      }
      if (!err.retryable) return this.failed(job, { code: err.code, message: err.message }, attempt, meta);
      return this.retry(job, { code: err.code, message: err.message }, attempt, meta, err.retryAfterMs);
    }
    if (isNotFound(err)) {
      // The post (or its profile) is gone: nothing to publish, and nobody waits for it.
      const after = await this.d.ledger.finish(publishJobKey(job), 'CANCELLED', { code: 'POST_NOT_FOUND', message: (err as Error).message }, attempt);
      return this.emitFrom(job, after, meta);
    }
    if (isDependencyDown(err)) {
      const e = err as AppError;
      return this.retry(job, { code: e.code, message: e.message }, attempt, meta);
    }
    if (err instanceof AppError && err.status >= 400 && err.status < 500) {
      // A neighbour's definite refusal (say PROFILE_AUTH_ERROR: the profile needs reconnecting).
      return this.failed(job, { code: err.code, message: err.message }, attempt, meta);
    }
    throw err; // a bug or bad data: the broker redelivers, and the last delivery fails the profile
  }

  private async retry(
    job: PublishRequested,
    error: { code: string; message: string },
    attempt: number,
    meta: JobMeta,
    retryAfterMs?: number,
  ): Promise<void> {
    if (attempt >= this.d.maxAttempts) {
      return this.failed(job, { code: error.code, message: `${error.message} (gave up after ${attempt} attempts)` }, attempt, meta);
    }
    const delayMs = Math.max(retryAfterMs ?? 0, this.d.retry.baseMs / 2 + retryDelay(attempt, this.d.retry));
    log.info('publish will be retried', { key: publishJobKey(job), attempt, delayMs, code: error.code });
    await this.d.outbox.retryLater({ ...job, attempt: attempt + 1 }, delayMs, meta);
  }

  /** The watchdog's question: how did this job end? Never publishes late. */
  private async reconcileOnly(job: PublishRequested, existing: Attempt | null, meta: JobMeta): Promise<void> {
    const key = publishJobKey(job);
    const timedOut = { code: 'PUBLISH_TIMED_OUT', message: 'The post was not published within the allowed time.' };
    if (!existing) {
      const r = await this.d.ledger.insert(this.start(job, meta, job.attempt ?? 1), 'FAILED', timedOut);
      if (r.created || r.attempt.state !== 'STARTED') return this.emitFrom(job, r.attempt, meta);
    }
    let found: PublishResult | null;
    try {
      found = await this.lookup(job, meta);
    } catch (err) {
      if (isDependencyDown(err) || (err instanceof NetworkError && err.retryable)) throw err; // redelivered
      found = null;
    }
    if (found) return this.published(job, found, job.attempt ?? 1, meta);
    const after = await this.d.ledger.finish(key, 'FAILED', timedOut, job.attempt ?? 1);
    return this.emitFrom(job, after, meta);
  }

  private async lookup(job: PublishRequested, meta: JobMeta): Promise<PublishResult | null> {
    const creds = await this.credentials(job, meta);
    return this.d.network.lookupPublished({ ...creds, idempotencyKey: publishJobKey(job) });
  }

  private async stale(job: PublishRequested, post: PostContent, meta: JobMeta): Promise<void> {
    const key = publishJobKey(job);
    if (post.publishStatus !== 'CANCELLED') {
      // Superseded by a newer revision (its own job publishes), or already settled: no result.
      log.info('stale job dropped', { key, currentRevision: post.revision, publishStatus: post.publishStatus });
      await this.d.ledger.finish(key, 'CANCELLED', { code: STALE_REVISION, message: 'superseded by a newer revision' }, job.attempt ?? 1);
      return;
    }
    const error = { code: 'PUBLISH_CANCELLED', message: 'The post was changed or unscheduled before it was published.' };
    const after = await this.d.ledger.finish(key, 'CANCELLED', error, job.attempt ?? 1);
    return this.emitFrom(job, after, meta);
  }

  private async credentials(job: PublishRequested, meta: JobMeta): Promise<AccountRef> {
    let c;
    try {
      c = await this.d.credentials.get(this.ws(meta), job.profileId);
    } catch (err) {
      if (isNotFound(err)) throw new JobFailure('PROFILE_NOT_CONNECTED', `Profile ${job.profileId} is not connected.`);
      throw err;
    }
    if (!isNetworkCode(c.net)) throw new JobFailure('PROFILE_NOT_CONNECTED', `Profile ${job.profileId} has an unknown network ${c.net}.`);
    return { net: c.net, accountId: c.accountId, accessToken: c.accessToken };
  }

  /** Captions, media (by signed URL), links and this network's settings, as the network takes them. */
  private async content(post: PostContent, meta: JobMeta): Promise<PublishPost> {
    const linkMedia = post.links.map((l) => l.mediaLibId).filter((id): id is string => id !== null);
    const files = await this.d.media.batchGet(this.ws(meta), [...post.mediaLibIds, ...linkMedia]);
    const media = post.mediaLibIds.map((id) => {
      const f = files.get(id);
      if (!f || f.status !== 'SUCCESS' || !f.url) {
        throw new JobFailure('MEDIA_NOT_READY', `Media ${id} is ${f ? f.status.toLowerCase() : 'missing'}; it cannot be published.`);
      }
      return {
        mimeType: f.mimeType,
        url: f.url,
        sizeBytes: f.sizeBytes,
        durationSec: f.durationSec,
        width: f.width,
        height: f.height,
      };
    });
    return {
      type: post.type as PublishPost['type'],
      caption: post.caption,
      firstComment: post.firstComment,
      media,
      links: post.links.map((l) => ({
        link: l.link,
        title: l.title,
        description: l.description,
        imageUrl: l.mediaLibId ? (files.get(l.mediaLibId)?.url ?? null) : null,
      })),
      settings: post.settings,
    };
  }

  private async published(job: PublishRequested, r: PublishResult, attempt: number, meta: JobMeta): Promise<void> {
    const after = await this.d.ledger.markPublished(publishJobKey(job), r.networkPostId, r.publishedAt, attempt);
    return this.emitFrom(job, after, meta);
  }

  private async failed(job: PublishRequested, error: { code: string; message: string }, attempt: number, meta: JobMeta): Promise<void> {
    log.warn('publish failed', { key: publishJobKey(job), ...error, attempt });
    const key = publishJobKey(job);
    let after = await this.d.ledger.get(key);
    if (!after) after = (await this.d.ledger.insert(this.start(job, meta, attempt), 'FAILED', error)).attempt;
    else after = await this.d.ledger.finish(key, 'FAILED', error, attempt);
    return this.emitFrom(job, after, meta);
  }

  /** Re-emits what the ledger holds: a redelivered job never publishes again. */
  private async emitFrom(job: JobRef, a: Attempt, meta: JobMeta): Promise<void> {
    if (a.state === 'STARTED') return; // another worker holds it and will report
    if (a.state === 'CANCELLED' && a.error?.code === STALE_REVISION) return;
    await this.emit(
      job,
      {
        status: a.state,
        ...(a.networkPostId ? { networkPostId: a.networkPostId } : {}),
        ...(a.publishedAt ? { publishedAt: a.publishedAt } : {}),
        ...(a.error ? { error: a.error } : {}),
        attempts: a.attempts,
      },
      meta,
    );
  }

  private emit(job: JobRef, r: Omit<PublishCompleted, 'postId' | 'profileId' | 'revision'>, meta: JobMeta) {
    outcomes.inc({ net: job.net, outcome: r.status.toLowerCase() });
    log.info('publish outcome reported', { key: publishJobKey(job), net: job.net, status: r.status, attempts: r.attempts, networkPostId: r.networkPostId });
    return this.d.outbox.result({ postId: job.postId, profileId: job.profileId, revision: job.revision, ...r }, meta);
  }

  private start(job: JobRef, meta: JobMeta, attempts: number): AttemptStart {
    return {
      key: publishJobKey(job),
      workspaceId: meta.workspaceId,
      postId: job.postId,
      profileId: job.profileId,
      revision: job.revision,
      net: job.net,
      attempts,
    };
  }

  private ws(meta: JobMeta): string {
    if (!meta.workspaceId) throw new JobFailure('INVALID_JOB', 'The job carries no workspace.');
    return meta.workspaceId;
  }
}
