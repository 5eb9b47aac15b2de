import { eventually, sleep } from '@social/testkit';
import { PublisherHarness } from './support/harness';

// One worker process, one sandbox process and one vhost for the whole file (setting them up is the
// slow part); each test uses posts of its own and reads only those. Every exactly-once assertion
// counts the posts the network created per (post, profile) (`h.created`), on generalNet, which
// keeps no idempotency keys, unless a test says otherwise: a second publish would show.
let h: PublisherHarness;

beforeAll(async () => {
  h = await PublisherHarness.start({
    NETWORK_TIMEOUT_MS: '1000',
    SANDBOX_MAX_PROCESSING_MS: '1500',
    PUBLISHER_OUTCOME_SETTLE_MS: '2500',
    PUBLISHER_MAX_ATTEMPTS: '8',
    PUBLISHER_RETRY_AFTER_MAX_MS: '8000',
    PUBLISHER_JOB_DELIVERY_LIMIT: '2',
  });
  await h.connect('prof-gn', 'generalNet', 'gn-own-1');
  await h.connect('prof-pn', 'photoNet', 'pn-own-1');
  await h.connect('prof-gn2', 'generalNet', 'gn-own-2');
  await h.connect('prof-gn3', 'generalNet', 'gn-own-3');
  await h.connect('prof-pro', 'professionalNet', 'pro-own-1');
}, 180000);

afterEach(async () => {
  await h.sandbox('DELETE', '/sandbox/admin/failures');
  await h.sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });
});

afterAll(async () => {
  await h?.stop();
}, 60000);

const outcome = (postId: string, timeoutMs = 20000) => eventually(async () => h.outcomesFor(postId)[0], timeoutMs, 100);
const failures = (rule: Record<string, unknown>) => h.sandbox('POST', '/sandbox/admin/failures', rule);

describe('publishing a job', () => {
  it('publishes the content the job carries, media as signed URLs and network settings included, and reports PUBLISHED', async () => {
    h.fakes.media.set('m1', {
      id: 'm1',
      status: 'SUCCESS',
      mime_type: 'image/jpeg',
      url: 'http://storage.test/m1?sig=1',
      width: 1080,
      height: 1080,
    });
    const job = h.job('happy-1', 'prof-pn', 'photoNet');
    job.content = {
      type: 'MEDIA',
      caption: 'Hello photo',
      firstComment: 'first!',
      mediaLibIds: ['m1'],
      links: [],
      settings: { shareToFeed: true },
    };

    await h.dispatch(job);

    expect(await outcome('happy-1')).toMatchObject({ status: 'PUBLISHED', revision: 1, attempts: 1, networkPostId: expect.any(String) });
    const { items } = await h.sandbox('GET', '/sandbox/admin/published?clientKeyPrefix=happy-1:');
    expect(items).toEqual([
      expect.objectContaining({
        net: 'photoNet',
        accountId: 'pn-own-1',
        type: 'MEDIA',
        caption: 'Hello photo',
        firstComment: 'first!',
        media: [expect.objectContaining({ mimeType: 'image/jpeg', url: 'http://storage.test/m1?sig=1' })],
        settings: { shareToFeed: true },
      }),
    ]);
  });

  it('answers a copy of a published job from the ledger, on a network that keeps no keys', async () => {
    await h.dispatch(h.job('copy-1', 'prof-gn', 'generalNet'));
    const first = await outcome('copy-1');

    await h.dispatch(h.job('copy-1', 'prof-gn', 'generalNet'));

    await eventually(async () => h.outcomesFor('copy-1').length === 2, 20000);
    expect(h.outcomesFor('copy-1').map((r) => [r.status, r.networkPostId])).toEqual([
      ['PUBLISHED', first.networkPostId],
      ['PUBLISHED', first.networkPostId],
    ]);
    expect(await h.created('copy-1', 'prof-gn')).toBe(1);
  });

  it('drops a copy of an older revision than the ledger last tried', async () => {
    await failures({ kind: 'reject_content', accountId: 'gn-own-3', operation: 'publish', count: 1 });
    await h.dispatch(h.job('old-rev', 'prof-gn3', 'generalNet', { revision: 1 }));
    expect(await outcome('old-rev')).toMatchObject({ status: 'FAILED', revision: 1 });
    await h.dispatch(h.job('old-rev', 'prof-gn3', 'generalNet', { revision: 2 }));
    await eventually(async () => h.outcomesFor('old-rev').length === 2, 20000);

    await h.dispatch(h.job('old-rev', 'prof-gn3', 'generalNet', { revision: 1 }));
    await sleep(1000);

    expect(h.outcomesFor('old-rev').map((r) => [r.revision, r.status])).toEqual([
      [1, 'FAILED'],
      [2, 'PUBLISHED'],
    ]);
    expect(await h.created('old-rev', 'prof-gn3')).toBe(1);
  });

  it('reads the post from posts for a job of an older dispatcher, and drops it when the post moved on', async () => {
    h.fakes.addPost({ postId: 'legacy-1', caption: 'from posts', profiles: { 'prof-gn': 'generalNet' } });
    h.fakes.addPost({ postId: 'legacy-2', revision: 2, profiles: { 'prof-gn': 'generalNet' } });

    await h.dispatch({ postId: 'legacy-1', profileId: 'prof-gn', revision: 1, net: 'generalNet' });
    await h.dispatch({ postId: 'legacy-2', profileId: 'prof-gn', revision: 1, net: 'generalNet' });

    expect(await outcome('legacy-1')).toMatchObject({ status: 'PUBLISHED' });
    await sleep(500);
    expect(h.outcomesFor('legacy-2')).toEqual([]);
    expect(await h.created('legacy-2', 'prof-gn')).toBe(0);
  });
});

describe('publishes whose outcome is unknown', () => {
  it("are found on a network without keys by the account's recent posts, and published once", async () => {
    // The network stores the post, then answers 500: the worker cannot know it was created.
    await failures({ kind: 'server_error', status: 500, phase: 'after', accountId: 'gn-own-2', operation: 'publish', count: 1 });

    await h.dispatch(h.job('unknown-gn', 'prof-gn2', 'generalNet', { caption: 'stored, then a 500' }));

    expect(await outcome('unknown-gn')).toMatchObject({ status: 'PUBLISHED' });
    expect(h.resultsFor('unknown-gn')[0]).toMatchObject({ status: 'UNKNOWN', error: { code: 'NETWORK_UNKNOWN_OUTCOME' } });
    expect(await h.created('unknown-gn', 'prof-gn2')).toBe(1);
  });

  it('are found by key on a network that keeps keys, and published once', async () => {
    await failures({ kind: 'server_error', status: 502, phase: 'after', accountId: 'pro-own-1', operation: 'publish', count: 1 });

    await h.dispatch(h.job('unknown-pro', 'prof-pro', 'professionalNet'));

    expect(await outcome('unknown-pro')).toMatchObject({ status: 'PUBLISHED' });
    expect(await h.created('unknown-pro', 'prof-pro')).toBe(1);
  });

  it('are published again once the network proves it holds nothing (the request was abandoned), still once in all', async () => {
    // Longer than the network's processing bound: it abandons the request (504) and stores nothing.
    await h.sandbox('POST', '/sandbox/admin/latency', { publishMs: 2000 });
    await h.dispatch(h.job('abandoned', 'prof-gn', 'generalNet'));
    await eventually(async () => h.resultsFor('abandoned').some((r) => r.status === 'UNKNOWN'), 20000);
    await h.sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });

    const done = await outcome('abandoned', 30000);

    expect(done).toMatchObject({ status: 'PUBLISHED' });
    expect(done.attempts).toBeGreaterThan(1);
    expect(await h.created('abandoned', 'prof-gn')).toBe(1);
  });

  it('stay PENDING-unknown while the network cannot be asked, are never failed for it, and settle once it can', async () => {
    // Stored, answered after the worker's timeout; and every question about it fails.
    await failures({ kind: 'slow', latencyMs: 1500, accountId: 'gn-own-3', operation: 'publish', count: 1 });
    await failures({ kind: 'server_error', status: 503, accountId: 'gn-own-3', operation: 'recentPosts' });

    await h.dispatch(h.job('unaskable', 'prof-gn3', 'generalNet'));
    await eventually(async () => h.resultsFor('unaskable').some((r) => r.status === 'UNKNOWN'), 20000);
    await sleep(6000); // well past the settle time: still nobody may say FAILED

    expect(h.outcomesFor('unaskable')).toEqual([]);
    expect(await h.created('unaskable', 'prof-gn3')).toBe(1);
    await h.sandbox('DELETE', '/sandbox/admin/failures');
    expect(await outcome('unaskable', 30000)).toMatchObject({ status: 'PUBLISHED' });
    expect(await h.created('unaskable', 'prof-gn3')).toBe(1);
  });

  it("are reconciled, not published again, when a later revision's job arrives meanwhile", async () => {
    await failures({ kind: 'slow', latencyMs: 1500, accountId: 'gn-own-2', operation: 'publish', count: 1 });
    await failures({ kind: 'server_error', status: 503, accountId: 'gn-own-2', operation: 'recentPosts' });
    await h.dispatch(h.job('unknown-then-new', 'prof-gn2', 'generalNet', { revision: 1 }));
    await eventually(async () => h.resultsFor('unknown-then-new').some((r) => r.status === 'UNKNOWN'), 20000);

    await h.dispatch(h.job('unknown-then-new', 'prof-gn2', 'generalNet', { revision: 2 }));
    await sleep(2000);
    expect(await h.created('unknown-then-new', 'prof-gn2')).toBe(1);
    await h.sandbox('DELETE', '/sandbox/admin/failures');

    await eventually(async () => h.outcomesFor('unknown-then-new').some((r) => r.status === 'PUBLISHED'), 30000);
    expect(await h.created('unknown-then-new', 'prof-gn2')).toBe(1);
  });
});

describe('failures', () => {
  it('retries what the network did not act on, fails a revoked token at once, and creates each post once', async () => {
    await failures({ kind: 'revoked_token', accountId: 'gn-own-2', operation: 'publish' });
    await failures({ kind: 'server_error', rate: 0.3, operation: 'publish', status: 503 });
    const ids = Array.from({ length: 30 }, (_, i) => `flaky-${i}`);

    for (const id of ids) await h.dispatch(h.job(id, id === 'flaky-0' ? 'prof-gn2' : 'prof-gn', 'generalNet'));

    await eventually(async () => ids.every((id) => h.outcomesFor(id).length > 0), 60000, 200);
    expect(h.outcomesFor('flaky-0')[0]).toMatchObject({
      status: 'FAILED',
      error: { code: 'NETWORK_AUTH_REVOKED', message: expect.stringContaining('token') },
    });
    expect(h.revoked).toContainEqual(expect.objectContaining({ profileId: 'prof-gn2', net: 'generalNet' }));
    const others = ids.slice(1).map((id) => h.outcomesFor(id)[0]!);
    expect(others.every((r) => r.status === 'PUBLISHED')).toBe(true);
    expect(Math.max(...others.map((r) => r.attempts))).toBeGreaterThan(1); // some were retried
    expect(await Promise.all(ids.slice(1).map((id) => h.created(id, 'prof-gn')))).toEqual(ids.slice(1).map(() => 1));
    expect(await h.created('flaky-0', 'prof-gn2')).toBe(0);
  });

  it("waits out one account's long Retry-After (capped) without holding back the retries of others", async () => {
    await failures({ kind: 'rate_limit', accountId: 'gn-own-3', operation: 'publish', retryAfterSeconds: 3600, count: 1 });
    await h.dispatch(h.job('limited', 'prof-gn3', 'generalNet'));
    await eventually(async () => (await h.sandbox('GET', '/sandbox/admin/failures')).items.length === 0, 10000); // fired (a count rule retires)
    // Every other job fails once (the network did not act) and goes through the delay queues too.
    await failures({ kind: 'server_error', status: 503, accountId: 'gn-own-1', operation: 'publish', count: 20 });
    const others = Array.from({ length: 20 }, (_, i) => `not-held-${i}`);

    for (const id of others) await h.dispatch(h.job(id, 'prof-gn', 'generalNet'));

    const done = await outcome('limited', 30000);
    expect(done).toMatchObject({ status: 'PUBLISHED', attempts: 2 });
    const order = h.results.filter((r) => r.status !== 'UNKNOWN').map((r) => r.postId);
    expect(others.every((id) => order.indexOf(id) >= 0 && order.indexOf(id) < order.indexOf('limited'))).toBe(true);
    expect(others.map((id) => h.outcomesFor(id)[0]!.attempts).every((a) => a >= 2)).toBe(true); // retried, not held
    expect(await h.created('limited', 'prof-gn3')).toBe(1);
  });

  it('fails a first attempt too long after the due time without publishing, and a later copy publishes nothing', async () => {
    const late = h.job('too-late', 'prof-gn', 'generalNet', { dueAt: new Date(Date.now() - 2 * 3600_000).toISOString() });

    await h.dispatch(late);
    expect(await outcome('too-late')).toMatchObject({ status: 'FAILED', error: { code: 'PUBLISH_TOO_LATE' } });
    await h.dispatch({ ...late, dueAt: new Date().toISOString() });
    await eventually(async () => h.outcomesFor('too-late').length === 2, 20000);

    expect(h.outcomesFor('too-late')[1]).toMatchObject({ status: 'FAILED', error: { code: 'PUBLISH_TOO_LATE' } });
    expect(await h.created('too-late', 'prof-gn')).toBe(0);
  });

  it('dead-letters a poison job and fails its profile, as nothing reached the network', async () => {
    h.fakes.addPost({ postId: 'poison-1', settingsJson: '{not json', profiles: { 'prof-gn': 'generalNet' } });
    const dlqBefore = await h.queueDepth('publisher.publish-jobs.dlq');

    await h.dispatch({ postId: 'poison-1', profileId: 'prof-gn', revision: 1, net: 'generalNet' });

    expect(await outcome('poison-1')).toMatchObject({ status: 'FAILED', error: { code: 'PUBLISH_JOB_FAILED' } });
    await eventually(async () => (await h.queueDepth('publisher.publish-jobs.dlq')) === dlqBefore + 1, 10000);
    expect(await h.created('poison-1', 'prof-gn')).toBe(0);
  });
});

describe('invalid jobs', () => {
  it('fail the profile at once when the envelope is invalid but names its post, profile and revision; a valid copy then publishes nothing', async () => {
    const dlqBefore = await h.queueDepth('publisher.publish-jobs.dlq');
    const job = { postId: 'invalid-1', profileId: 'prof-gn', revision: 1, net: 'generalNet', dueAt: 'soon' }; // dueAt is no date-time

    await h.sendRaw({
      id: 'not-a-uuid',
      type: 'post.publish.requested',
      occurredAt: new Date().toISOString(),
      correlationId: 'c-invalid',
      workspaceId: 'w1',
      payload: job,
    });

    expect(await outcome('invalid-1')).toMatchObject({
      status: 'FAILED',
      revision: 1,
      error: { code: 'INVALID_PUBLISH_JOB', message: expect.stringContaining('/payload/dueAt') },
    });
    await eventually(async () => (await h.queueDepth('publisher.publish-jobs.dlq')) === dlqBefore + 1, 10000);
    await h.dispatch(h.job('invalid-1', 'prof-gn', 'generalNet'));
    await eventually(async () => h.outcomesFor('invalid-1').length === 2, 20000);
    expect(h.outcomesFor('invalid-1')[1]).toMatchObject({ status: 'FAILED', error: { code: 'INVALID_PUBLISH_JOB' } });
    expect(await h.created('invalid-1', 'prof-gn')).toBe(0);
  });

  it("re-emit a published job's result for an invalid copy of it instead of failing the profile", async () => {
    await h.dispatch(h.job('invalid-2', 'prof-gn', 'generalNet'));
    await outcome('invalid-2');

    const payload = { ...h.job('invalid-2', 'prof-gn', 'generalNet'), extra: true };
    await h.sendRaw({
      id: 'not-a-uuid',
      type: 'post.publish.requested',
      occurredAt: new Date().toISOString(),
      correlationId: 'c',
      workspaceId: 'w1',
      payload,
    });

    await eventually(async () => h.outcomesFor('invalid-2').length === 2, 20000);
    expect(h.outcomesFor('invalid-2').map((r) => r.status)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(await h.created('invalid-2', 'prof-gn')).toBe(1);
  });

  it('only dead-letter bytes that name no job, reporting nothing (the posts watchdog asks again)', async () => {
    const dlqBefore = await h.queueDepth('publisher.publish-jobs.dlq');
    const envelope = {
      id: 'x',
      type: 'post.publish.requested',
      occurredAt: new Date().toISOString(),
      correlationId: 'c',
      workspaceId: 'w1',
    };

    await h.sendRaw('{"type":"post.publish.requested","payload":{"postId":"unreadable-1"'); // cut short: not JSON
    await h.sendRaw({ ...envelope, payload: { postId: 'unreadable-1', revision: 1, net: 'generalNet' } }); // no profile
    await h.sendRaw({ ...envelope, workspaceId: null, payload: { postId: 'unreadable-1', profileId: 'prof-gn', revision: 1 } }); // no workspace
    await h.sendRaw({
      ...envelope,
      type: 'post.publish.completed',
      payload: { postId: 'unreadable-1', profileId: 'prof-gn', revision: 1 },
    }); // not a job

    await eventually(async () => (await h.queueDepth('publisher.publish-jobs.dlq')) === dlqBefore + 4, 20000);
    await sleep(500);
    expect(h.resultsFor('unreadable-1')).toEqual([]);
    expect(await h.created('unreadable-1', 'prof-gn')).toBe(0);
  });
});

describe("the watchdog's questions", () => {
  it('publish what no attempt ever reached the network for (a lost job), once, and re-report what was published', async () => {
    await h.dispatch(h.job('lost-job', 'prof-gn', 'generalNet', { mode: 'reconcile' }));
    await h.dispatch(h.job('copy-1', 'prof-gn', 'generalNet', { mode: 'reconcile' }));

    expect(await outcome('lost-job')).toMatchObject({ status: 'PUBLISHED' });
    await eventually(async () => h.outcomesFor('copy-1').length === 3, 20000);
    expect(h.outcomesFor('copy-1')[2]).toMatchObject({ status: 'PUBLISHED' });
    expect([await h.created('lost-job', 'prof-gn'), await h.created('copy-1', 'prof-gn')]).toEqual([1, 1]);
  });
});

describe('worker crashes', () => {
  it('publishes every job exactly once when a worker is SIGKILLed mid-batch and another takes over', async () => {
    await h.sandbox('POST', '/sandbox/admin/latency', { publishMs: 300 });
    const ids = Array.from({ length: 150 }, (_, i) => `crash-${i}`);
    await Promise.all(ids.map((id) => h.dispatch(h.job(id, 'prof-gn', 'generalNet'))));

    await eventually(async () => ids.filter((id) => h.outcomesFor(id).length > 0).length >= 20, 30000, 50);
    await h.system.stopProcess('publisher', 'SIGKILL');
    const doneAtKill = ids.filter((id) => h.outcomesFor(id).length > 0).length;
    await h.system.startProcess('publisher');

    await eventually(async () => ids.every((id) => h.outcomesFor(id).length > 0), 90000, 200);
    expect(doneAtKill).toBeLessThan(ids.length);
    expect(ids.every((id) => h.outcomesFor(id).every((r) => r.status === 'PUBLISHED'))).toBe(true);
    const { clientKeys } = await h.sandbox('GET', '/sandbox/admin/published?clientKeyPrefix=crash-');
    expect(clientKeys).toHaveLength(150);
    expect(clientKeys.filter((k: { created: number }) => k.created !== 1)).toEqual([]);
  });

  it('finishes or hands back its in-flight jobs on SIGTERM and exits 0: none lost, none duplicated', async () => {
    await h.sandbox('POST', '/sandbox/admin/latency', { publishMs: 300 });
    // More jobs than one worker holds (PUBLISHER_CONCURRENCY, 128): some are still queued at the
    // stop and must reach the next worker.
    const ids = Array.from({ length: 200 }, (_, i) => `term-${i}`);
    await Promise.all(ids.map((id) => h.dispatch(h.job(id, 'prof-gn', 'generalNet'))));

    await eventually(async () => ids.filter((id) => h.outcomesFor(id).length > 0).length >= 10, 30000, 50);
    expect(await h.system.stopProcess('publisher', 'SIGTERM')).toBe(0);
    const doneAtStop = ids.filter((id) => h.outcomesFor(id).length > 0).length;
    await h.system.startProcess('publisher');

    await eventually(async () => ids.every((id) => h.outcomesFor(id).length > 0), 90000, 200);
    expect(doneAtStop).toBeLessThan(ids.length);
    expect(ids.every((id) => h.outcomesFor(id).every((r) => r.status === 'PUBLISHED'))).toBe(true);
    const { clientKeys } = await h.sandbox('GET', '/sandbox/admin/published?clientKeyPrefix=term-');
    expect(clientKeys).toHaveLength(200);
    expect(clientKeys.filter((k: { created: number }) => k.created !== 1)).toEqual([]);
  });
});
