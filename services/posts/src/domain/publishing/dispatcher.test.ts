import type { PublishRequested } from '@social/contracts';
import { setLogLevel } from '@social/logger';
import { runInThisContext } from 'node:vm';
import type { PostRecord } from '../posts/post.types';
import { Dispatcher, type DispatcherOptions } from './dispatcher';
import type { DueRevision, JobQueue, PublishingPosts } from './ports';

// The dispatcher warns by design (hand-backs, failed claims); TEST_LOG_LEVEL=warn shows it.
setLogLevel(process.env['TEST_LOG_LEVEL'] ?? 'error');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(2);
  }
}

/** A promise to hold a fake's answer until the test lets it go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

const post = (id: string, dueAt: Date): PostRecord =>
  ({
    id,
    workspaceId: 'w1',
    type: 'STATUS',
    stage: 'SCHEDULED',
    revision: 1,
    publishAt: dueAt,
    captions: [{ plainText: id, firstComment: null, net: null }],
    medias: [],
    links: [],
    networks: {},
    plan: [{ profileId: 'f1', status: 'PENDING', revision: 1, networkPostId: null, reason: null }],
    profileNets: { f1: 'generalNet' },
    dispatch: { state: 'WAITING', dueAt, requestId: null, checkAt: null, rounds: 0 },
    version: 1,
  }) as unknown as PostRecord;

/**
 * Posts as the repository keeps them: a scan reads what is WAITING when it runs; a claim is a
 * compare-and-set conditional on the revision and WAITING, so a second claim of a revision gets null.
 */
function store(...initial: PostRecord[]) {
  const posts = new Map(initial.map((p) => [p.id, p]));
  const claims: string[] = [];
  /** Each claim command's revisions, as it starts. */
  const commands: string[][] = [];
  const hooks: {
    /** Holds a scan's answer (read when it started) until it resolves. */
    scanGate?: Promise<void>;
    /** Holds a claim command until it resolves. */
    claimGate?: Promise<void>;
    /** How long a scan of `n` posts and a claim command take. */
    scanMs?: (n: number) => number;
    claimMs?: number;
    onScan?: () => void;
  } = {};
  /** Claims of a revision that was no longer waiting (sent, or claimed already). */
  const lost: string[] = [];
  const claim = (due: DueRevision, checkAt: Date): PostRecord | null => {
    claims.push(due.postId);
    const p = posts.get(due.postId);
    if (!p || p.revision !== due.revision || p.dispatch?.state !== 'WAITING') {
      lost.push(due.postId);
      return null;
    }
    const next = { ...p, dispatch: { ...p.dispatch, state: 'DISPATCHED' as const, checkAt }, version: p.version + 1 };
    posts.set(p.id, next);
    return next;
  };
  const fake: PublishingPosts = {
    async waitingUntil(horizon) {
      const read = [...posts.values()]
        .filter((p) => p.dispatch?.state === 'WAITING' && p.dispatch.dueAt.getTime() <= horizon.getTime())
        .map((p) => ({ workspaceId: p.workspaceId, postId: p.id, revision: p.revision, dueAt: p.dispatch!.dueAt }));
      const held = hooks.scanGate;
      if (held) await held;
      if (hooks.scanMs) await sleep(hooks.scanMs(read.length));
      hooks.onScan?.();
      return read;
    },
    async claimForDispatch(due, checkAt) {
      return claim(due, checkAt);
    },
    async claimManyForDispatch(due, checkAt) {
      commands.push(due.map((d) => d.postId));
      const held = hooks.claimGate;
      if (held) await held;
      if (hooks.claimMs) await sleep(hooks.claimMs);
      return due.map((d) => claim(d, checkAt));
    },
    async dueForCheck() {
      return [];
    },
    async modify(_ws, id, change) {
      const p = posts.get(id);
      if (!p) return null;
      const next = change(p);
      if (next) posts.set(id, next);
      return next ?? p;
    },
  };
  return { fake, posts, claims, commands, lost, hooks };
}

function queue() {
  const sent: PublishRequested[] = [];
  const hooks: { sendGate?: Promise<void>; send?: (job: PublishRequested) => Promise<void> } = {};
  const jobs: JobQueue = {
    async publishJob(job) {
      const held = hooks.sendGate;
      if (held) await held;
      await hooks.send?.(job);
      sent.push(job);
    },
    async reconcileJob() {},
  };
  return { jobs, sent, hooks };
}

// Ticks only when a test calls tick(): a tick of an hour never comes on its own.
const opts: DispatcherOptions = {
  tickMs: 3_600_000,
  lookAheadMs: 2000,
  claimLeadMs: 5000,
  concurrency: 10,
  batchSize: 50,
  watchdogTimeoutMs: 600_000,
};

describe('Dispatcher', () => {
  let d: Dispatcher | undefined;
  afterEach(async () => {
    await d?.stop().catch(() => undefined);
    d = undefined;
  });

  it('sends an overdue post once', async () => {
    const s = store(post('p1', new Date(Date.now() - 1000)));
    const q = queue();
    d = new Dispatcher(s.fake, q.jobs, opts);
    d.start();
    await until(() => q.sent.length === 1);
    await sleep(20);
    expect(q.sent.map((j) => j.postId)).toEqual(['p1']);
    expect(s.claims).toEqual(['p1']);
  });

  it('does not claim again a revision it sent while a slower listing was under way', async () => {
    // A listing reads the post WAITING, and answers only after this replica claimed and sent it
    // (a backlog drained after downtime: listings now overlap claims and sends).
    const s = store(post('p1', new Date(Date.now() - 1000)));
    const q = queue();
    const claimGate = gate();
    s.hooks.claimGate = claimGate.opened;
    d = new Dispatcher(s.fake, q.jobs, opts);
    d.start();
    await until(() => s.commands.length === 1); // the first listing is over, its claim is held
    const scanGate = gate();
    s.hooks.scanGate = scanGate.opened;
    const second = d.tick(); // reads p1 WAITING, answers later
    await sleep(5);
    s.hooks.scanGate = undefined;
    claimGate.open();
    await until(() => q.sent.length === 1);
    await sleep(5);
    scanGate.open();
    await second;
    await sleep(20);

    expect(q.sent.map((j) => j.postId)).toEqual(['p1']);
    expect(s.claims).toEqual(['p1']); // no second claim command for what was already sent
  });

  it('on stop, hands back the claimed revisions still queued for a send slot instead of sending them', async () => {
    // Claims are no longer bounded by `concurrency`: behind a slow broker every due post is claimed
    // and queues for a slot. A replica that stops sends what is in flight and hands back the rest.
    const due = new Date(Date.now() - 1000);
    const s = store(post('p1', due), post('p2', due), post('p3', due));
    const q = queue();
    const sendGate = gate();
    q.hooks.sendGate = sendGate.opened;
    d = new Dispatcher(s.fake, q.jobs, { ...opts, concurrency: 1 });
    d.start();
    await until(() => s.claims.length === 3);
    await sleep(10); // p1 is being sent; p2 and p3 wait for the slot

    const stopped = d.stop();
    await sleep(10);
    sendGate.open();
    await stopped;

    expect(q.sent.map((j) => j.postId)).toEqual(['p1']);
    for (const id of ['p2', 'p3']) expect(s.posts.get(id)!.dispatch).toMatchObject({ state: 'WAITING', dueAt: due, checkAt: null });
    expect(s.posts.get('p1')!.dispatch!.state).toBe('DISPATCHED');
  });

  it('waits for the due times of many claimed posts without a "possible memory leak" warning', async () => {
    // The burst this lead is for: many posts claimed ahead, each waiting for its due time.
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(`${w.name}: ${w.message}`);
    // Node emits its warnings on the real process, not on the one jest gives the test.
    const realProcess = runInThisContext('process') as NodeJS.Process;
    realProcess.on('warning', onWarning);
    try {
      const due = new Date(Date.now() + 300);
      const s = store(...Array.from({ length: 20 }, (_, i) => post(`p${i}`, due)));
      const q = queue();
      d = new Dispatcher(s.fake, q.jobs, { ...opts, concurrency: 20 });
      d.start();
      await until(() => q.sent.length === 20);
      await sleep(10); // warnings are emitted on the next tick
    } finally {
      realProcess.off('warning', onWarning);
    }

    expect(warnings).toEqual([]);
  });

  it('claims ahead, with the watchdog looking from the due time, and sends at the due time', async () => {
    const due = new Date(Date.now() + 300);
    const s = store(post('p1', due));
    const q = queue();
    let sentAt = 0;
    const publish = q.jobs.publishJob;
    q.jobs.publishJob = async (job, ws) => {
      sentAt = Date.now();
      await publish(job, ws);
    };
    d = new Dispatcher(s.fake, q.jobs, opts);
    d.start();
    await until(() => s.posts.get('p1')!.dispatch!.state === 'DISPATCHED');
    expect(Date.now()).toBeLessThan(due.getTime());
    expect(s.posts.get('p1')!.dispatch!.checkAt).toEqual(new Date(due.getTime() + opts.watchdogTimeoutMs));

    await until(() => q.sent.length === 1);
    expect(sentAt).toBeGreaterThanOrEqual(due.getTime());
  });

  it('hands back, with its due time, a revision claimed ahead when it stops before that time', async () => {
    const due = new Date(Date.now() + 400);
    const s = store(post('p1', due));
    const q = queue();
    d = new Dispatcher(s.fake, q.jobs, opts);
    d.start();
    await until(() => s.posts.get('p1')!.dispatch!.state === 'DISPATCHED');

    await d.stop();

    expect(q.sent).toEqual([]);
    expect(s.posts.get('p1')!.dispatch).toMatchObject({ state: 'WAITING', dueAt: due, checkAt: null });
    expect((d as unknown as { held: Set<string> }).held.size).toBe(0);
  });

  it('hands back a revision whose claim completes after stop began', async () => {
    const due = new Date(Date.now() + 2000);
    const s = store(post('p1', due));
    const q = queue();
    const claimGate = gate();
    s.hooks.claimGate = claimGate.opened;
    d = new Dispatcher(s.fake, q.jobs, opts);
    d.start();
    await until(() => s.commands.length === 1);

    const stopped = d.stop();
    claimGate.open();
    await stopped;

    expect(q.sent).toEqual([]);
    expect(s.posts.get('p1')!.dispatch).toMatchObject({ state: 'WAITING', dueAt: due });
  });

  it('lets go of a batch whose claim throws: the next listing claims it again', async () => {
    const s = store(post('p1', new Date(Date.now() - 1000)));
    const q = queue();
    const claim = s.fake.claimManyForDispatch;
    let failures = 1;
    s.fake.claimManyForDispatch = async (due, checkAt) => {
      if (failures-- > 0) throw new Error('database unavailable');
      return claim(due, checkAt);
    };
    d = new Dispatcher(s.fake, q.jobs, opts);
    d.start();
    await sleep(30);
    expect(q.sent).toEqual([]);

    await d.tick();
    await until(() => q.sent.length === 1);
    expect(q.sent.map((j) => j.postId)).toEqual(['p1']);
  });

  it('sends nothing for a revision replaced after it was listed, and sends the new one at its time', async () => {
    const s = store(post('p1', new Date(Date.now() + 5500)));
    const q = queue();
    d = new Dispatcher(s.fake, q.jobs, { ...opts, claimLeadMs: 5000 });
    d.start();
    await sleep(20); // listed, its claim half a second away
    const edited = post('p1', new Date(Date.now() + 300));
    s.posts.set('p1', { ...edited, revision: 2, plan: [{ ...edited.plan[0]!, revision: 2 }], version: 2 });
    await d.tick();

    await until(() => q.sent.length === 1);
    await sleep(700); // the first revision's claim time has come and gone
    expect(q.sent.map((j) => [j.postId, j.revision])).toEqual([['p1', 2]]);
  });

  it('drains a backlog once: every revision sent once, none claimed when no longer waiting, nothing held', async () => {
    // 300 posts overdue after downtime and 100 due within the second; listings every 10 ms that take
    // longer with more posts, claims that take 3 ms, and one send in twenty failing (handed back).
    const now = Date.now();
    const s = store(
      ...Array.from({ length: 300 }, (_, i) => post(`o${i}`, new Date(now - 1000 - i))),
      ...Array.from({ length: 100 }, (_, i) => post(`f${i}`, new Date(now + i * 10))),
    );
    s.hooks.scanMs = (n) => 15 + n / 20;
    s.hooks.claimMs = 3;
    const q = queue();
    let sends = 0;
    q.hooks.send = async (job) => {
      await sleep(sends % 7);
      if (++sends % 20 === 0) throw new Error('broker unavailable');
      if (s.posts.get(job.postId)!.dispatch?.state !== 'DISPATCHED') throw new Error(`${job.postId} sent unclaimed`);
    };
    d = new Dispatcher(s.fake, q.jobs, { ...opts, tickMs: 10, lookAheadMs: 200, claimLeadMs: 300, concurrency: 20, batchSize: 25 });
    d.start();
    await until(() => new Set(q.sent.map((j) => j.postId)).size === 400, 10_000);
    await d.stop();

    expect(q.sent).toHaveLength(400);
    expect(s.lost).toEqual([]);
    expect((d as unknown as { held: Set<string> }).held.size).toBe(0);
  });
});

// A backlog of overdue revisions, claimed one batch at a time.
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
const backlogOpts = { tickMs: 60_000, lookAheadMs: 2000, claimLeadMs: 5000, concurrency: 10, batchSize: 1, watchdogTimeoutMs: 60000 };
const settle = () => new Promise((r) => setTimeout(r, 20));

describe('listings while claims are behind', () => {
  it('does not list again while listed revisions wait past their claim time (a listing reads every waiting post whole), and lists once none does', async () => {
    const { posts, counts, releaseClaims, unblock } = slowPosts([revision('a'), revision('b'), revision('c')]);
    const dispatcher = new Dispatcher(posts, jobs, backlogOpts, () => now);
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
