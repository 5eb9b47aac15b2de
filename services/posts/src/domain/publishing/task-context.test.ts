import type { PublishRequested } from '@social/contracts';
import { getContext, setLogLevel, type LogContext } from '@social/logger';
import type { PostRepository } from '../../data/post.repository';
import type { PublishTask, PublishTaskRepository } from '../../data/publish-task.repository';
import type { PostRecord } from '../posts/post.types';
import type { ApplyPublishResult } from './apply-result.use-case';
import { Dispatcher } from './dispatcher';
import type { JobQueue } from './publishing.ports';
import { Watchdog } from './watchdog';

// The lease take-over and the watchdog warn by design; TEST_LOG_LEVEL=warn shows them.
setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

// Jobs are published long after the request that planned them (on a tick, by another replica after
// a lease, by the watchdog): they must still carry that request's id.
const now = new Date('2030-01-01T12:00:30Z');
const task = (overrides: Partial<PublishTask> = {}): PublishTask => ({
  id: 'p1:2',
  workspaceId: 'w1',
  postId: 'p1',
  revision: 2,
  dueAt: new Date('2030-01-01T12:00:00Z'),
  dueMinute: '2030-01-01T12:00',
  state: 'CLAIMED',
  requestId: 'req-schedule-1',
  claimToken: 't',
  leaseUntil: null,
  dispatchedAt: null,
  checkMinute: null,
  checkAt: null,
  reconcileRounds: 0,
  createdAt: now,
  updatedAt: now,
  ...overrides,
});
const post = {
  id: 'p1',
  workspaceId: 'w1',
  stage: 'SCHEDULED',
  revision: 2,
  publishAt: new Date('2030-01-01T12:00:00Z'),
  plan: [{ profileId: 'f1', status: 'PENDING', revision: 2, networkPostId: null, reason: null }],
  profileNets: { f1: 'generalNet' },
} as unknown as PostRecord;
const posts = { get: async () => post } as unknown as PostRepository;

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

const dispatcherOpts = { tickMs: 1000, leaseMs: 5000, lookbackMinutes: 10, sweepMs: 60000, watchdogTimeoutMs: 60000, concurrency: 2, lookAheadMs: 2000 };
const traced = { requestId: 'req-schedule-1', correlationId: 'req-schedule-1', workspaceId: 'w1' };

describe('publish jobs carry the id of the request that planned them', () => {
  it('when publishNow dispatches at once', async () => {
    const { queue, seen } = recordingQueue();
    const tasks = { claimOne: async () => task(), markDispatched: async () => undefined } as unknown as PublishTaskRepository;

    await new Dispatcher(tasks, posts, queue, dispatcherOpts, () => now).dispatchNow('p1', 2);

    expect(seen).toEqual([{ kind: 'publish', job: expect.objectContaining({ postId: 'p1', profileId: 'f1' }), ctx: traced }]);
  });

  it('when another replica re-dispatches a task whose lease ran out', async () => {
    const { queue, seen } = recordingQueue();
    let handedOver = false;
    const tasks = {
      waitingIn: async () => [],
      reclaimExpired: async () => (handedOver ? [] : ((handedOver = true), [task({ requestId: 'req-retry-7' })])),
      markDispatched: async () => undefined,
    } as unknown as PublishTaskRepository;

    await new Dispatcher(tasks, posts, queue, dispatcherOpts, () => now).tick();

    expect(seen.map((s) => s.ctx)).toEqual([{ requestId: 'req-retry-7', correlationId: 'req-retry-7', workspaceId: 'w1' }]);
  });

  it('when the watchdog asks the publisher to reconcile', async () => {
    const { queue, seen } = recordingQueue();
    let checked = false;
    const tasks = {
      dueForCheck: async () => (checked ? [] : ((checked = true), [task({ state: 'DISPATCHED', checkAt: now })])),
      recheckLater: async () => undefined,
    } as unknown as PublishTaskRepository;
    const results = {} as ApplyPublishResult;
    const watchdog = new Watchdog(tasks, posts, queue, results, { tickMs: 1000, timeoutMs: 60000, maxRounds: 3, lookbackMinutes: 10 }, () => now);

    await watchdog.tick();

    expect(seen).toEqual([{ kind: 'reconcile', job: expect.objectContaining({ mode: 'reconcile' }), ctx: traced }]);
  });

  it('falls back to no request id for a task stored before ids were kept', async () => {
    const { queue, seen } = recordingQueue();
    const tasks = { claimOne: async () => task({ requestId: undefined as unknown as null }), markDispatched: async () => undefined } as unknown as PublishTaskRepository;

    await new Dispatcher(tasks, posts, queue, dispatcherOpts, () => now).dispatchNow('p1', 2);

    expect(seen.map((s) => s.ctx)).toEqual([{ workspaceId: 'w1' }]);
  });
});
