import type { PublishRequested } from '@social/contracts';
import { getContext, setLogLevel, type LogContext } from '@social/logger';
import type { PostRecord } from '../posts/post.types';
import { Dispatcher } from './dispatcher';
import type { JobQueue, PublishingPosts } from './ports';
import { Watchdog } from './watchdog';

// The watchdog warns by design; TEST_LOG_LEVEL=warn shows it.
setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

// Jobs are published long after the request that planned them (on a tick, by another replica, by
// the watchdog): they must still carry that request's id.
const now = new Date('2030-01-01T12:00:30Z');
const dueAt = new Date('2030-01-01T12:00:00Z');
const post = (requestId: string | null, state: 'WAITING' | 'DISPATCHED' = 'DISPATCHED'): PostRecord =>
  ({
    id: 'p1',
    workspaceId: 'w1',
    type: 'STATUS',
    stage: 'SCHEDULED',
    revision: 2,
    publishAt: dueAt,
    captions: [{ plainText: 'hi', firstComment: null, net: null }],
    medias: [],
    links: [],
    networks: {},
    plan: [{ profileId: 'f1', status: 'PENDING', revision: 2, networkPostId: null, reason: null }],
    profileNets: { f1: 'generalNet' },
    dispatch: { state, dueAt, requestId, checkAt: now, rounds: 0 },
    version: 5,
  }) as unknown as PostRecord;

/** Posts that hand out `p` to every question. */
const postsOf = (p: PostRecord): PublishingPosts => ({
  waitingUntil: async () => [{ workspaceId: p.workspaceId, postId: p.id, revision: p.revision, dueAt }],
  claimForDispatch: async () => p,
  claimManyForDispatch: async (due) => due.map(() => p),
  dueForCheck: async () => [p],
  modify: async () => p,
});

/** A job queue that remembers the log context each job was published in. */
function recordingQueue() {
  const seen: { kind: string; job: PublishRequested; ctx: LogContext }[] = [];
  const queue: JobQueue = {
    async publishJob(job) {
      seen.push({ kind: 'publish', job, ctx: { ...getContext() } });
    },
    async reconcileJob(job) {
      seen.push({ kind: 'reconcile', job, ctx: { ...getContext() } });
    },
  };
  return { queue, seen };
}

const dispatcherOpts = { tickMs: 1000, lookAheadMs: 2000, claimLeadMs: 0, concurrency: 2, batchSize: 2, watchdogTimeoutMs: 60000 };

/** Runs the dispatcher until it has sent a job (the post is due: listed, claimed and sent at once). */
async function runUntilSent(dispatcher: Dispatcher, seen: unknown[]): Promise<void> {
  dispatcher.start();
  while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
  await dispatcher.stop();
}
const traced = { requestId: 'req-schedule-1', correlationId: 'req-schedule-1', workspaceId: 'w1' };

describe('publish jobs carry the id of the request that planned them', () => {
  it('when the dispatcher sends a due post', async () => {
    const { queue, seen } = recordingQueue();

    await runUntilSent(new Dispatcher(postsOf(post('req-schedule-1')), queue, dispatcherOpts, () => now), seen);

    expect(seen).toEqual([{ kind: 'publish', job: expect.objectContaining({ postId: 'p1', profileId: 'f1', revision: 2 }), ctx: traced }]);
  });

  it('when publishNow dispatches at once', async () => {
    const { queue, seen } = recordingQueue();

    await new Dispatcher(postsOf(post('req-schedule-1')), queue, dispatcherOpts, () => now).dispatchNow(post('req-schedule-1', 'WAITING'));

    expect(seen.map((s) => s.ctx)).toEqual([traced]);
  });

  it('when the watchdog asks the publisher to reconcile', async () => {
    const { queue, seen } = recordingQueue();

    await new Watchdog(postsOf(post('req-schedule-1')), queue, { tickMs: 1000, timeoutMs: 60000, maxIntervalMs: 600000 }, () => now).tick();

    expect(seen).toEqual([
      {
        kind: 'reconcile',
        job: expect.objectContaining({ mode: 'reconcile', content: expect.objectContaining({ caption: 'hi' }) }),
        ctx: traced,
      },
    ]);
  });

  it('falls back to no request id for a revision planned without one', async () => {
    const { queue, seen } = recordingQueue();

    await runUntilSent(new Dispatcher(postsOf(post(null)), queue, dispatcherOpts, () => now), seen);

    expect(seen.map((s) => s.ctx)).toEqual([{ workspaceId: 'w1' }]);
  });
});
