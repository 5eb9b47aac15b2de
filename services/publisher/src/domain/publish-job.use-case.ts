import { publishJobName, publishKey, type PublishCompleted, type PublishRequested } from '@social/contracts';
import { AppError, ErrorCodes } from '@social/errors';
import { publishOutcomes } from '@social/metrics';
import { contentFingerprint, isNetworkCode, NetworkError, type AccountRef, type NetworkAdapter, type PublishPost } from '@social/networks';
import { jobLog as log } from '../logger';
import { findOnNetwork, lastCallOf, type SettleTimes } from './find-on-network';
import type { AttemptStart, CredentialSource, JobError, JobMeta, JobOutbox, Ledger, LedgerEntry, MediaSource, PostSource } from './ports';
import { nextTry, type RetryPolicy } from './retry-policy';

export interface PublishJobDeps {
  ledger: Ledger;
  posts: PostSource;
  media: MediaSource;
  credentials: CredentialSource;
  network: NetworkAdapter;
  outbox: JobOutbox;
  /** Network calls per revision before a failure that may pass is given up (FAILED). */
  maxAttempts: number;
  retry: RetryPolicy;
  settle: SettleTimes;
  /** A first attempt this long after the due time is not made: the post is FAILED as too late. */
  maxLatenessMs: number;
  now?: () => Date;
}

/** What names one job: its post, profile, revision and network. */
export type JobRef = Pick<PublishRequested, 'postId' | 'profileId' | 'revision' | 'net'>;

/** A failure that retrying cannot fix: the profile is FAILED at once with this code. */
class JobFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Dependencies of the job (media, competitors, posts) that are down or slow: try again later. */
const DEPENDENCY_DOWN = new Set<string>([ErrorCodes.SERVICE_UNAVAILABLE, ErrorCodes.DEADLINE_EXCEEDED, 'BROKER_UNAVAILABLE']);
const isDependencyDown = (err: unknown) =>
  err instanceof AppError && !(err instanceof NetworkError) && (DEPENDENCY_DOWN.has(err.code) || err.status === 503 || err.status === 504);
const isNotFound = (err: unknown) => err instanceof AppError && !(err instanceof NetworkError) && err.status === 404;
const outcomes = publishOutcomes();
/**
 * A delayed job that comes back from the delay queues this close to its `notBefore` runs now
 * instead of going round again (a whole second); its planned retry counts as due then too.
 */
const EARLY_MS = 50;
/**
 * Longest a recorded attempt may wait before its network call. The ledger stamps the call's time
 * when the attempt is recorded, and a reconcile takes the post's absence as proof from that time
 * plus the settle time (the network's longest processing + 10 s). A recording that answered late (a
 * batched insert queued behind a slow or timed-out command) would eat that margin and let a
 * reconcile publish again while the first call is still being processed: such an attempt records
 * the call's time again first.
 */
const CALL_STAMP_SLACK_MS = 2000;

/**
 * One publish job: publish a post on one profile, exactly once.
 *
 * The ledger has one entry per (post, profile). An attempt is recorded there (CALLING, with the
 * content's fingerprint) before the network is called, and no other attempt for that (post,
 * profile) calls the network while one may have created the post: not a copy of the job, not a
 * retry, not a later revision. Most networks keep no idempotency keys, so this is the guarantee; a
 * network that keeps them is only a second safety. When an attempt's outcome is unknown (timeout,
 * an error after the network may have acted), the network is asked: by key where it keeps keys,
 * else by the account's recent posts matched on the content fingerprint. Found: PUBLISHED. Proven
 * absent (asked after the attempt could no longer land): a new attempt may run. Cannot tell yet:
 * the profile stays PENDING (shown as PUBLISH_OUTCOME_UNKNOWN) and is asked about again later.
 * Definite refusals fail the profile with the reason; failures that may pass are retried after a
 * delay (capped, jittered; Retry-After honoured up to the cap).
 */
export class PublishJob {
  private readonly now: () => Date;

  constructor(private readonly d: PublishJobDeps) {
    this.now = d.now ?? (() => new Date());
  }

  async handle(job: PublishRequested, meta: JobMeta): Promise<void> {
    if (job.notBefore && Date.parse(job.notBefore) > this.now().getTime() + EARLY_MS) return this.d.outbox.later(job, meta);
    log.info('publish job started', { job: publishJobName(job), net: job.net, attempt: job.attempt ?? 1, mode: job.mode ?? 'publish' });
    try {
      // The ledger entry is created (or found) by the first write: no read first on the common path.
      if (this.tooLate(job)) return await this.settleFirst(job, { code: 'PUBLISH_TOO_LATE', message: this.lateMessage(job) }, meta);
      return await this.attempt(job, null, meta);
    } catch (err) {
      return this.onError(job, err, meta);
    }
  }

  /**
   * The job failed on its last delivery. What may have reached the network stays to be reconciled;
   * what certainly did not is FAILED.
   */
  async poisoned(job: PublishRequested, err: unknown, meta: JobMeta): Promise<void> {
    const error = {
      code: 'PUBLISH_JOB_FAILED',
      message: `The publish job could not be processed: ${(err as Error)?.message ?? String(err)}`,
    };
    const entry = await this.d.ledger.get(publishKey(job));
    if (!entry) return this.settleFirst(job, error, meta);
    if (entry.state === 'CALLING') return this.stillUnknown(job, entry, error, meta);
    if (entry.state === 'NOT_PUBLISHED' && !entry.final) {
      const after = await this.d.ledger.notPublished(entry, { error, final: true, retryAt: null });
      return this.report(job, after ?? (await this.d.ledger.get(entry.key))!, meta);
    }
    return this.report(job, entry, meta);
  }

  /**
   * A job whose envelope failed validation but still names its post, profile, revision and
   * workspace. Nothing of it is trusted enough to publish. Without a ledger entry the profile fails
   * at once (INVALID_PUBLISH_JOB), and the entry keeps a valid copy arriving later from publishing;
   * with one, what the ledger holds is reported (an attempt in flight reports for itself).
   */
  async invalid(job: JobRef, reason: string, meta: JobMeta): Promise<void> {
    const error = { code: 'INVALID_PUBLISH_JOB', message: `The publish job is not valid (${reason}); nothing was published.` };
    const r = await this.d.ledger.begin({ ...this.refOf(job, meta), state: 'NOT_PUBLISHED', error, final: true });
    if (r.created) log.warn('invalid publish job: profile failed', { job: publishJobName(job), reason });
    if (!r.created && r.entry.state === 'CALLING') {
      log.warn('invalid copy of a job an attempt is in flight for; leaving it to that attempt', { job: publishJobName(job) });
      return;
    }
    return this.report(job, r.entry, meta);
  }

  /** A ledger entry exists for this (post, profile): a copy, a retry, a reconcile or a new revision. */
  private async continueFrom(job: PublishRequested, entry: LedgerEntry, meta: JobMeta): Promise<void> {
    if (job.revision < entry.revision) {
      log.info('stale job dropped: a later revision was tried since', { job: publishJobName(job), ledgerRevision: entry.revision });
      return;
    }
    switch (entry.state) {
      case 'PUBLISHED':
        return this.report(job, entry, meta);
      case 'CALLING':
        return this.reconcile(job, entry, meta);
      case 'NOT_PUBLISHED': {
        const newRevision = job.revision > entry.revision;
        if (!newRevision && entry.final) return this.report(job, entry, meta);
        // A retry is planned: only its own job (or a reconcile once it is due) runs it.
        const due = !entry.retryAt || entry.retryAt.getTime() <= this.now().getTime() + EARLY_MS;
        const itsRetry = job.mode === 'reconcile' || (job.attempt ?? 1) > entry.attempts;
        if (!newRevision && !(due && itsRetry)) return;
        if (this.tooLate(job)) {
          const after = await this.d.ledger.notPublished(entry, {
            error: { code: 'PUBLISH_TOO_LATE', message: this.lateMessage(job) },
            final: true,
            retryAt: null,
          });
          return after ? this.report(job, after, meta) : this.retryFromLedger(job, meta);
        }
        return this.attempt(job, entry, meta);
      }
    }
  }

  /** Records an attempt (first, or after NOT_PUBLISHED), then calls the network. */
  private async attempt(job: PublishRequested, previous: LedgerEntry | null, meta: JobMeta): Promise<void> {
    const ws = this.ws(meta);
    const [creds, post] = await Promise.all([this.credentials(job, meta), this.content(job, ws)]);
    if (post === 'stale') return;
    const start: AttemptStart = {
      ...this.refOf(job, meta),
      state: 'CALLING',
      accountId: creds.accountId,
      fingerprint: contentFingerprint(post),
    };
    let entry: LedgerEntry | null;
    let recordedFrom = this.now().getTime();
    if (previous) {
      entry = await this.d.ledger.beginAgain(previous, start);
      if (!entry) return this.retryFromLedger(job, meta); // another copy moved first
    } else {
      const r = await this.d.ledger.begin(start);
      if (!r.created) return this.continueFrom(job, r.entry, meta);
      entry = r.entry;
    }
    if (this.now().getTime() - recordedFrom > CALL_STAMP_SLACK_MS) {
      recordedFrom = this.now().getTime();
      log.warn('attempt recorded late; recording the call time again before calling', { job: publishJobName(job) });
      entry = await this.d.ledger.callingNow(entry);
      if (!entry) return this.retryFromLedger(job, meta); // a reconcile or another copy moved first
      // Late again: nothing is sent; the job comes back and finds the attempt to reconcile.
      if (this.now().getTime() - recordedFrom > CALL_STAMP_SLACK_MS)
        throw new Error('the ledger answered too late to call the network now');
    }
    try {
      const result = await this.d.network.publish({ ...creds, idempotencyKey: entry.key, post });
      return await this.published(job, result.networkPostId, result.publishedAt, meta, entry);
    } catch (err) {
      return this.afterCall(job, entry, creds, err, meta);
    }
  }

  /** The network call failed: what that says about the post decides what happens next. */
  private async afterCall(job: PublishRequested, entry: LedgerEntry, creds: AccountRef, err: unknown, meta: JobMeta): Promise<void> {
    if (!(err instanceof NetworkError))
      return this.stillUnknown(job, entry, { code: 'PUBLISH_OUTCOME_UNKNOWN', message: String((err as Error)?.message ?? err) }, meta);
    const error = { code: err.code, message: err.message };
    switch (err.kind) {
      case 'UNKNOWN_OUTCOME':
        log.warn('publish outcome unknown; the network will be asked', { job: publishJobName(job), message: err.message });
        return this.stillUnknown(job, entry, error, meta);
      case 'DUPLICATE': {
        // The network holds a post under our key (with other per-try values, say signed URLs).
        const found = await this.d.network.lookupPublished({ ...creds, idempotencyKey: entry.key }).catch(() => null);
        if (found) return this.published(job, found.networkPostId, found.publishedAt, meta);
        return this.stillUnknown(job, entry, error, meta);
      }
      case 'AUTH_REVOKED':
        this.d.credentials.forget(this.ws(meta), job.profileId);
        await this.d.outbox.authRevoked(job.profileId, job.net, err.message, meta);
        return this.failed(job, entry, error, meta);
      case 'RATE_LIMITED':
      case 'TRANSIENT':
        return this.retryLater(job, entry, error, meta, err.retryAfterMs);
      default:
        return this.failed(job, entry, error, meta);
    }
  }

  /** The latest attempt may have created the post: ask the network, never publish blindly. */
  private async reconcile(job: PublishRequested, entry: LedgerEntry, meta: JobMeta): Promise<void> {
    const creds = await this.credentials(job, meta);
    let found;
    try {
      found = await findOnNetwork(this.d.network, this.d.ledger, entry, creds, this.d.settle, this.now());
    } catch (err) {
      const why = err instanceof AppError ? `${err.code}: ${err.message}` : String(err);
      return this.stillUnknown(
        job,
        entry,
        { code: 'PUBLISH_OUTCOME_UNKNOWN', message: `The network could not be asked whether it holds the post (${why}).` },
        meta,
      );
    }
    if (found === 'unknowable') {
      // Nothing the worker can ask will ever tell: it stops asking. The posts watchdog's questions
      // (which never stop while the profile is PENDING) still come, and are answered the same way.
      const keys = (entry.idempotencyKeys?.length ? entry.idempotencyKeys : [entry.key]).join(', ');
      return this.stillUnknown(
        job,
        entry,
        {
          code: 'PUBLISH_OUTCOME_UNKNOWN',
          message:
            `An earlier release sent this publish (idempotency key ${keys}) without recording its content, and the ` +
            'network keeps no key for it (none, or no longer): whether it created the post cannot be told, so it is not published again. ' +
            'Check the account on the network.',
        },
        meta,
        false,
      );
    }
    if (found === 'unsettled') {
      return this.stillUnknown(
        job,
        entry,
        { code: 'PUBLISH_OUTCOME_UNKNOWN', message: 'The publish may still land on the network; it will be checked again.' },
        meta,
      );
    }
    if (found) return this.published(job, found.networkPostId, found.publishedAt, meta);
    log.info('the network does not hold the post: the attempt created nothing', { job: publishJobName(job), attempts: entry.attempts });
    return this.retryLater(job, entry, { code: 'PUBLISH_NOT_ON_NETWORK', message: 'The network did not receive the post.' }, meta, 0);
  }

  /**
   * The attempt may have created the post: shown as such, and reconciled when it can be settled
   * (`askAgain` false: when no question can ever settle it).
   */
  private async stillUnknown(job: PublishRequested, entry: LedgerEntry, error: JobError, meta: JobMeta, askAgain = true): Promise<void> {
    if (entry.error?.code !== error.code || entry.error.message !== error.message) {
      await this.d.ledger.unsettled(entry, error);
      await this.emit(job, { status: 'UNKNOWN', error, attempts: entry.attempts }, meta);
    }
    if (!askAgain) return;
    // The next question: not before the attempt can no longer land, then less and less often.
    // (In a reconcile job `attempt` counts the questions asked.)
    const earliest = (lastCallOf(entry)?.getTime() ?? this.now().getTime()) + this.d.settle.settleMs(job.net);
    const round = (job.mode === 'reconcile' ? (job.attempt ?? 1) : 0) + 1;
    const notBefore = Math.max(earliest, this.now().getTime() + nextTry(round, this.d.retry));
    await this.d.outbox.later({ ...job, mode: 'reconcile', attempt: round, notBefore: new Date(notBefore).toISOString() }, meta);
  }

  /** The attempt certainly created nothing; tried again later unless attempts or time ran out. */
  private async retryLater(
    job: PublishRequested,
    entry: LedgerEntry,
    error: JobError,
    meta: JobMeta,
    retryAfterMs?: number,
  ): Promise<void> {
    if (entry.attempts >= this.d.maxAttempts) {
      return this.failed(job, entry, { code: error.code, message: `${error.message} (gave up after ${entry.attempts} attempts)` }, meta);
    }
    const retryAt = new Date(this.now().getTime() + nextTry(entry.attempts, this.d.retry, retryAfterMs));
    const after = await this.d.ledger.notPublished(entry, { error, final: false, retryAt });
    if (!after) return this.retryFromLedger(job, meta);
    log.info('publish will be tried again', {
      job: publishJobName(job),
      attempts: entry.attempts,
      retryAt: retryAt.toISOString(),
      code: error.code,
    });
    await this.d.outbox.later({ ...job, mode: 'publish', attempt: entry.attempts + 1, notBefore: retryAt.toISOString() }, meta);
  }

  private async failed(job: PublishRequested, entry: LedgerEntry, error: JobError, meta: JobMeta): Promise<void> {
    log.warn('publish failed', { job: publishJobName(job), ...error, attempts: entry.attempts });
    const after = await this.d.ledger.notPublished(entry, { error, final: true, retryAt: null });
    return after ? this.report(job, after, meta) : this.retryFromLedger(job, meta);
  }

  private async published(
    job: PublishRequested,
    networkPostId: string,
    publishedAt: string,
    meta: JobMeta,
    known?: LedgerEntry,
  ): Promise<void> {
    return this.report(job, await this.d.ledger.published(publishKey(job), networkPostId, new Date(publishedAt), known), meta);
  }

  /** A first entry that is already settled without any network call (too late, failed job). */
  private async settleFirst(job: PublishRequested, error: JobError, meta: JobMeta): Promise<void> {
    const r = await this.d.ledger.begin({ ...this.refOf(job, meta), state: 'NOT_PUBLISHED', error, final: true });
    return r.created ? this.report(job, r.entry, meta) : this.continueFrom(job, r.entry, meta);
  }

  /** Another copy changed the entry between our read and our write: go on from what it is now. */
  private async retryFromLedger(job: PublishRequested, meta: JobMeta): Promise<void> {
    const now = await this.d.ledger.get(publishKey(job));
    if (now) return this.continueFrom(job, now, meta);
  }

  private async onError(job: PublishRequested, err: unknown, meta: JobMeta): Promise<void> {
    if (err instanceof JobFailure) return this.failBeforeCall(job, { code: err.code, message: err.message }, meta);
    if (isDependencyDown(err)) {
      // Nothing was sent (dependencies are read before the ledger entry): the job comes back later.
      const attempt = (job.attempt ?? 1) + 1;
      const notBefore = new Date(this.now().getTime() + nextTry(attempt - 1, this.d.retry)).toISOString();
      log.info('a dependency is down; the job comes back later', { job: publishJobName(job), code: (err as AppError).code });
      return this.d.outbox.later({ ...job, attempt, notBefore }, meta);
    }
    throw err; // a bug or bad data: the broker redelivers, and the last delivery settles it (poisoned)
  }

  /** A definite failure found before any call (missing media, no credentials): FAILED. */
  private async failBeforeCall(job: PublishRequested, error: JobError, meta: JobMeta): Promise<void> {
    const entry = await this.d.ledger.get(publishKey(job));
    if (!entry) return this.settleFirst(job, error, meta);
    if (entry.state === 'NOT_PUBLISHED' && (!entry.final || job.revision > entry.revision)) {
      const after = await this.d.ledger.beginAgain(entry, { ...this.refOf(job, meta), state: 'NOT_PUBLISHED', error, final: true });
      return after ? this.report(job, after, meta) : this.retryFromLedger(job, meta);
    }
    return this.continueFrom(job, entry, meta);
  }

  /** Reports what the ledger holds for this job: a redelivered job never publishes again. */
  private async report(job: JobRef, entry: LedgerEntry, meta: JobMeta): Promise<void> {
    if (entry.state === 'CALLING') return;
    if (entry.state === 'NOT_PUBLISHED' && !entry.final) return;
    await this.emit(
      job,
      entry.state === 'PUBLISHED'
        ? {
            status: 'PUBLISHED',
            networkPostId: entry.networkPostId!,
            publishedAt: entry.publishedAt!.toISOString(),
            attempts: entry.attempts,
          }
        : { status: 'FAILED', ...(entry.error ? { error: entry.error } : {}), attempts: entry.attempts },
      meta,
    );
  }

  private emit(job: JobRef, r: Omit<PublishCompleted, 'postId' | 'profileId' | 'revision'>, meta: JobMeta) {
    outcomes.inc({ net: job.net, outcome: r.status.toLowerCase() });
    log.info('publish outcome reported', {
      job: publishJobName(job),
      net: job.net,
      status: r.status,
      attempts: r.attempts,
      networkPostId: r.networkPostId,
    });
    return this.d.outbox.result({ postId: job.postId, profileId: job.profileId, revision: job.revision, ...r }, meta);
  }

  private tooLate(job: PublishRequested): boolean {
    return this.now().getTime() - Date.parse(job.dueAt) > this.d.maxLatenessMs;
  }

  private lateMessage(job: PublishRequested): string {
    return `The post was due at ${job.dueAt} and could not be published within ${Math.round(this.d.maxLatenessMs / 60000)} minutes of it; it was not published.`;
  }

  private refOf(job: JobRef, meta: JobMeta) {
    return {
      key: publishKey(job),
      workspaceId: meta.workspaceId,
      postId: job.postId,
      profileId: job.profileId,
      net: job.net,
      revision: job.revision,
    };
  }

  private async credentials(job: JobRef, meta: JobMeta): Promise<AccountRef> {
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

  /** The post as the network takes it: the job's content, its media as signed URLs. */
  private async content(job: PublishRequested, ws: string): Promise<PublishPost | 'stale'> {
    let c = job.content;
    if (!c) {
      // A job of an older dispatcher: read the post, and drop the job if the post moved on.
      const post = await this.d.posts.get(ws, job).catch((err) => {
        if (isNotFound(err)) throw new JobFailure('POST_NOT_FOUND', (err as Error).message);
        throw err;
      });
      if (post.revision !== job.revision || post.publishStatus !== 'PENDING') return 'stale';
      c = post;
    }
    const linkMedia = c.links.map((l) => l.mediaLibId).filter((id): id is string => id !== null);
    const ids = [...c.mediaLibIds, ...linkMedia];
    const files = ids.length > 0 ? await this.d.media.batchGet(ws, ids) : new Map();
    const media = c.mediaLibIds.map((id) => {
      const f = files.get(id);
      if (!f || f.status !== 'SUCCESS' || !f.url) {
        throw new JobFailure('MEDIA_NOT_READY', `Media ${id} is ${f ? f.status.toLowerCase() : 'missing'}; it cannot be published.`);
      }
      return { mimeType: f.mimeType, url: f.url, sizeBytes: f.sizeBytes, durationSec: f.durationSec, width: f.width, height: f.height };
    });
    return {
      type: c.type as PublishPost['type'],
      caption: c.caption,
      firstComment: c.firstComment,
      media,
      links: c.links.map((l) => ({
        link: l.link,
        title: l.title,
        description: l.description,
        imageUrl: l.mediaLibId ? (files.get(l.mediaLibId)?.url ?? null) : null,
      })),
      // No settings at all is what a network without a network object for the post receives.
      settings: Object.keys(c.settings).length > 0 ? c.settings : null,
    };
  }

  private ws(meta: JobMeta): string {
    if (!meta.workspaceId) throw new JobFailure('INVALID_JOB', 'The job carries no workspace.');
    return meta.workspaceId;
  }
}
