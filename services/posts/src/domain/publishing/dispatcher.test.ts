import { setLogLevel } from '@social/logger';
import type { PostRecord } from '../posts/post.types';
import { Dispatcher } from './dispatcher';
import type { DueRevision, JobQueue, PublishingPosts } from './ports';

setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

const now = new Date('2030-01-01T12:00:30Z');
const dueAt = new Date('2030-01-01T12:00:00Z'); // overdue: every claim time has passed

const revision = (postId: string): DueRevision => ({ workspaceId: 'w1', postId, revision: 1, dueAt });
const claimed = (due: DueRevision): PostRecord =>
  ({
    id: due.postId,
    workspaceId: due.workspaceId,
    revision: due.revision,
    stage: 'SCHEDULED',
    plan: [],
    dispatch: { state: 'DISPATCHED', dueAt, requestId: null, checkAt: now, rounds: 0 },
    version: 2,
  }) as unknown as PostRecord;

/** Posts whose claims wait until the test lets them through; counts the listings. */
function slowPosts(waiting: DueRevision[]) {
  const pending: (() => void)[] = [];
  let blocking = true;
  const counts = { listings: 0, claims: 0 };
  const posts: PublishingPosts = {
    waitingUntil: async () => {
      counts.listings += 1;
      return counts.listings === 1 ? waiting : []; // later listings: claimed, so no longer waiting
    },
    claimForDispatch: async (due) => claimed(due),
    claimManyForDispatch: async (due) => {
      counts.claims += 1;
      if (blocking) await new Promise<void>((resolve) => pending.push(resolve));
      return due.map(claimed);
    },
    dueForCheck: async () => [],
    modify: async () => null,
  };
  const releaseClaims = async () => {
    while (pending.length > 0) pending.shift()!();
    await new Promise((r) => setTimeout(r, 10));
  };
  /** Lets every claim through, from now on too. */
  const unblock = () => {
    blocking = false;
    return releaseClaims();
  };
  return { posts, counts, releaseClaims, unblock };
}

const jobs: JobQueue = { publishJob: async () => undefined, reconcileJob: async () => undefined };
const opts = { tickMs: 60_000, lookAheadMs: 2000, claimLeadMs: 5000, concurrency: 10, batchSize: 1, watchdogTimeoutMs: 60000 };
const settle = () => new Promise((r) => setTimeout(r, 20));

describe('dispatcher listings', () => {
  it('does not list again while listed revisions wait past their claim time (a listing reads every waiting post whole), and lists once none does', async () => {
    const { posts, counts, releaseClaims, unblock } = slowPosts([revision('a'), revision('b'), revision('c')]);
    const dispatcher = new Dispatcher(posts, jobs, opts, () => now);
    dispatcher.start();
    try {
      await settle();
      expect(counts).toEqual({ listings: 1, claims: 1 }); // listed all three, claiming the first

      await dispatcher.tick();
      await dispatcher.tick();
      expect(counts.listings).toBe(1); // b and c still wait for their claims: nothing to list

      await releaseClaims(); // a claimed; b's claim starts, c waits
      await dispatcher.tick();
      expect(counts.listings).toBe(1);

      await releaseClaims(); // b claimed; c's claim starts: nothing waits for its claim any more
      await dispatcher.tick();
      expect(counts).toEqual({ listings: 2, claims: 3 });
    } finally {
      await unblock();
      await dispatcher.stop();
    }
  });
});
