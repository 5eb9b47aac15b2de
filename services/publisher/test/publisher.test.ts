import { eventually, sleep } from '@social/testkit';
import { PublisherHarness } from './support/harness';

// One worker process, one sandbox process and one vhost for the whole file (setting them up is the
// slow part); each test uses posts of its own and reads only those.
let h: PublisherHarness;

beforeAll(async () => {
  h = await PublisherHarness.start({
    NETWORK_TIMEOUT_MS: '1000',
    PUBLISHER_MAX_ATTEMPTS: '8',
    PUBLISHER_JOB_DELIVERY_LIMIT: '2',
  });
  await h.connect('prof-gn', 'generalNet', 'gn-own-1');
  await h.connect('prof-pn', 'photoNet', 'pn-own-1');
  await h.connect('prof-gn2', 'generalNet', 'gn-own-2');
}, 180000);

afterAll(async () => {
  await h?.stop();
}, 60000);

const published = async (query = '') => h.sandbox('GET', `/sandbox/admin/published${query}`);
const itemFor = async (key: string) => (await published()).items.filter((i: { idempotencyKey: string }) => i.idempotencyKey === key);

describe('publisher worker', () => {
  it('publishes a job exactly as posts gives it, network settings included, and reports PUBLISHED', async () => {
    h.fakes.media.set('m1', { id: 'm1', status: 'SUCCESS', mime_type: 'image/jpeg', url: 'http://storage.test/m1?sig=1', width: 1080, height: 1080 });
    h.fakes.addPost({
      postId: 'happy-1',
      type: 'MEDIA',
      caption: 'Hello photo',
      firstComment: 'first!',
      mediaLibIds: ['m1'],
      settingsJson: JSON.stringify({ shareToFeed: true }),
      profiles: { 'prof-pn': 'photoNet' },
    });

    await h.dispatch({ postId: 'happy-1', profileId: 'prof-pn', revision: 1, net: 'photoNet' });

    const [result] = await eventually(async () => (h.resultsFor('happy-1').length ? h.resultsFor('happy-1') : null), 20000);
    expect(result).toMatchObject({ status: 'PUBLISHED', revision: 1, attempts: 1, networkPostId: expect.any(String) });
    const [item] = await itemFor('happy-1:prof-pn:1');
    expect(item).toMatchObject({
      networkPostId: result!.networkPostId,
      net: 'photoNet',
      accountId: 'pn-own-1',
      type: 'MEDIA',
      caption: 'Hello photo',
      firstComment: 'first!',
      media: [expect.objectContaining({ mimeType: 'image/jpeg', url: 'http://storage.test/m1?sig=1' })],
      settings: { shareToFeed: true },
    });
  });

  it('answers a redelivered job from its ledger without publishing again', async () => {
    h.fakes.addPost({ postId: 'redeliver-1', profiles: { 'prof-gn': 'generalNet' } });
    await h.dispatch({ postId: 'redeliver-1', profileId: 'prof-gn', revision: 1, net: 'generalNet' });
    await eventually(async () => h.resultsFor('redeliver-1').length === 1, 20000);

    await h.dispatch({ postId: 'redeliver-1', profileId: 'prof-gn', revision: 1, net: 'generalNet' });

    await eventually(async () => h.resultsFor('redeliver-1').length === 2, 20000);
    expect(h.resultsFor('redeliver-1').map((r) => r.status)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(h.resultsFor('redeliver-1')[1]!.networkPostId).toBe(h.resultsFor('redeliver-1')[0]!.networkPostId);
    // The copy may have read the post (that read overlaps the ledger claim), but the network saw
    // one publish: the ledger answered the copy.
    expect(await itemFor('redeliver-1:prof-gn:1')).toHaveLength(1);
  });

  it('drops a job of a stale revision, and reports CANCELLED when the profile was cancelled', async () => {
    h.fakes.addPost({ postId: 'stale-1', revision: 2, profiles: { 'prof-gn': 'generalNet' } });
    await h.dispatch({ postId: 'stale-1', profileId: 'prof-gn', revision: 1, net: 'generalNet' }); // re-planned: dropped
    h.fakes.addPost({ postId: 'stale-2', revision: 2, profiles: { 'prof-gn': 'generalNet' } }).profiles.get('prof-gn')!.status = 'CANCELLED';
    await h.dispatch({ postId: 'stale-2', profileId: 'prof-gn', revision: 1, net: 'generalNet' }); // unscheduled

    const [cancelled] = await eventually(async () => (h.resultsFor('stale-2').length ? h.resultsFor('stale-2') : null), 20000);
    expect(cancelled).toMatchObject({ status: 'CANCELLED', revision: 1, error: { code: 'PUBLISH_CANCELLED' } });
    await sleep(300);
    expect(h.resultsFor('stale-1')).toEqual([]);
    expect(await itemFor('stale-1:prof-gn:1')).toHaveLength(0);
    expect(await itemFor('stale-2:prof-gn:1')).toHaveLength(0);
  });

  it('settles a stale job as stale even when its profile has no credentials any more (they are read in parallel)', async () => {
    h.fakes.addPost({ postId: 'stale-3', revision: 2, profiles: { 'prof-disconnected': 'generalNet' } }).profiles.get('prof-disconnected')!.status = 'CANCELLED';
    await h.dispatch({ postId: 'stale-3', profileId: 'prof-disconnected', revision: 1, net: 'generalNet' });

    const [result] = await eventually(async () => (h.resultsFor('stale-3').length ? h.resultsFor('stale-3') : null), 20000);
    expect(result).toMatchObject({ status: 'CANCELLED', error: { code: 'PUBLISH_CANCELLED' } });
  });

  it('reconciles a publish that timed out by asking the network, and publishes it once', async () => {
    // The sandbox creates the post, then holds the answer past the worker's 1 s network timeout.
    await h.sandbox('POST', '/sandbox/admin/failures', { kind: 'slow', latencyMs: 1500, accountId: 'gn-own-2', operation: 'publish', count: 1 });
    h.fakes.addPost({ postId: 'slow-1', profiles: { 'prof-gn2': 'generalNet' } });

    await h.dispatch({ postId: 'slow-1', profileId: 'prof-gn2', revision: 1, net: 'generalNet' });

    const [result] = await eventually(async () => (h.resultsFor('slow-1').length ? h.resultsFor('slow-1') : null), 20000);
    expect(result).toMatchObject({ status: 'PUBLISHED' });
    const keys = (await published('?accountId=gn-own-2')).keys.filter((k: { idempotencyKey: string }) => k.idempotencyKey === 'slow-1:prof-gn2:1');
    expect(keys).toEqual([expect.objectContaining({ posts: 1 })]);
  });

  it('retries transient failures without blocking other jobs, fails a revoked token at once, duplicates nothing', async () => {
    await h.sandbox('DELETE', '/sandbox/admin/failures');
    await h.sandbox('POST', '/sandbox/admin/failures', { kind: 'revoked_token', accountId: 'gn-own-2', operation: 'publish' });
    await h.sandbox('POST', '/sandbox/admin/failures', { kind: 'server_error', rate: 0.3, operation: 'publish', status: 503 });
    const ids = Array.from({ length: 30 }, (_, i) => `flaky-${i}`);
    for (const id of ids) h.fakes.addPost({ postId: id, profiles: { [id === 'flaky-0' ? 'prof-gn2' : 'prof-gn']: 'generalNet' } });

    for (const id of ids) {
      await h.dispatch({ postId: id, profileId: id === 'flaky-0' ? 'prof-gn2' : 'prof-gn', revision: 1, net: 'generalNet' });
    }

    await eventually(async () => ids.every((id) => h.resultsFor(id).length > 0), 60000, 200);
    await h.sandbox('DELETE', '/sandbox/admin/failures');
    const revoked = h.resultsFor('flaky-0')[0]!;
    expect(revoked).toMatchObject({ status: 'FAILED', error: { code: 'NETWORK_AUTH_REVOKED', message: expect.stringContaining('token') } });
    expect(h.revoked).toContainEqual(expect.objectContaining({ profileId: 'prof-gn2', net: 'generalNet' }));
    const others = ids.slice(1).map((id) => h.resultsFor(id)[0]!);
    expect(others.every((r) => r.status === 'PUBLISHED')).toBe(true);
    expect(Math.max(...others.map((r) => r.attempts))).toBeGreaterThan(1); // some were retried
    const all = await published();
    expect(all.duplicateKeys).toEqual([]);
    expect(all.keys.filter((k: { idempotencyKey: string }) => k.idempotencyKey.startsWith('flaky-'))).toHaveLength(29);
  });

  it('dead-letters a poison job and fails its profile instead of leaving it PENDING', async () => {
    h.fakes.addPost({ postId: 'poison-1', settingsJson: '{not json', profiles: { 'prof-gn': 'generalNet' } });

    await h.dispatch({ postId: 'poison-1', profileId: 'prof-gn', revision: 1, net: 'generalNet' });

    const [result] = await eventually(async () => (h.resultsFor('poison-1').length ? h.resultsFor('poison-1') : null), 20000);
    expect(result).toMatchObject({ status: 'FAILED', error: { code: 'PUBLISH_JOB_FAILED' } });
    await eventually(async () => (await h.queueDepth('publisher.publish-jobs.dlq')) === 1, 10000);
    expect(await itemFor('poison-1:prof-gn:1')).toHaveLength(0);
  });

  it('fails the profile at once for a job whose envelope is invalid but names its post, profile and revision; a valid copy then publishes nothing', async () => {
    h.fakes.addPost({ postId: 'invalid-1', profiles: { 'prof-gn': 'generalNet' } });
    const dlqBefore = await h.queueDepth('publisher.publish-jobs.dlq');
    const job = { postId: 'invalid-1', profileId: 'prof-gn', revision: 1, net: 'generalNet', dueAt: 'soon' }; // dueAt is no date-time

    await h.sendRaw({ id: 'not-a-uuid', type: 'post.publish.requested', occurredAt: new Date().toISOString(), correlationId: 'c-invalid', workspaceId: 'w1', payload: job });

    const [failed] = await eventually(async () => (h.resultsFor('invalid-1').length ? h.resultsFor('invalid-1') : null), 20000);
    expect(failed).toMatchObject({
      status: 'FAILED',
      revision: 1,
      error: { code: 'INVALID_PUBLISH_JOB', message: expect.stringContaining('/payload/dueAt') },
    });
    await eventually(async () => (await h.queueDepth('publisher.publish-jobs.dlq')) === dlqBefore + 1, 10000);
    // The key is claimed: a valid copy of the job finds it failed and does not publish.
    await h.dispatch({ postId: 'invalid-1', profileId: 'prof-gn', revision: 1, net: 'generalNet' });
    await eventually(async () => h.resultsFor('invalid-1').length === 2, 20000);
    expect(h.resultsFor('invalid-1')[1]).toMatchObject({ status: 'FAILED', error: { code: 'INVALID_PUBLISH_JOB' } });
    expect(await itemFor('invalid-1:prof-gn:1')).toHaveLength(0);
  });

  it('re-emits a published job\'s result for an invalid copy of it instead of failing the profile', async () => {
    h.fakes.addPost({ postId: 'invalid-2', profiles: { 'prof-gn': 'generalNet' } });
    await h.dispatch({ postId: 'invalid-2', profileId: 'prof-gn', revision: 1, net: 'generalNet' });
    await eventually(async () => h.resultsFor('invalid-2').length === 1, 20000);

    const payload = { postId: 'invalid-2', profileId: 'prof-gn', revision: 1, net: 'generalNet', dueAt: new Date().toISOString(), extra: true };
    await h.sendRaw({ id: 'not-a-uuid', type: 'post.publish.requested', occurredAt: new Date().toISOString(), correlationId: 'c', workspaceId: 'w1', payload });

    await eventually(async () => h.resultsFor('invalid-2').length === 2, 20000);
    expect(h.resultsFor('invalid-2').map((r) => r.status)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(await itemFor('invalid-2:prof-gn:1')).toHaveLength(1);
  });

  it('only dead-letters bytes that name no job, reporting nothing (the posts watchdog settles such a profile)', async () => {
    h.fakes.addPost({ postId: 'unreadable-1', profiles: { 'prof-gn': 'generalNet' } });
    const dlqBefore = await h.queueDepth('publisher.publish-jobs.dlq');
    const envelope = { id: 'x', type: 'post.publish.requested', occurredAt: new Date().toISOString(), correlationId: 'c', workspaceId: 'w1' };

    await h.sendRaw('{"type":"post.publish.requested","payload":{"postId":"unreadable-1"'); // cut short: not JSON
    await h.sendRaw({ ...envelope, payload: { postId: 'unreadable-1', revision: 1, net: 'generalNet' } }); // no profile
    await h.sendRaw({ ...envelope, workspaceId: null, payload: { postId: 'unreadable-1', profileId: 'prof-gn', revision: 1 } }); // no workspace
    await h.sendRaw({ ...envelope, type: 'post.publish.completed', payload: { postId: 'unreadable-1', profileId: 'prof-gn', revision: 1 } }); // not a job

    await eventually(async () => (await h.queueDepth('publisher.publish-jobs.dlq')) === dlqBefore + 4, 20000);
    await sleep(500);
    expect(h.resultsFor('unreadable-1')).toEqual([]);
    expect(await itemFor('unreadable-1:prof-gn:1')).toHaveLength(0);
  });

  it('settles a watchdog reconcile: FAILED when never published, PUBLISHED when the ledger says so', async () => {
    h.fakes.addPost({ postId: 'recon-1', profiles: { 'prof-gn': 'generalNet' } });
    await h.dispatch({ postId: 'recon-1', profileId: 'prof-gn', revision: 1, net: 'generalNet', mode: 'reconcile' });
    await h.dispatch({ postId: 'happy-1', profileId: 'prof-pn', revision: 1, net: 'photoNet', mode: 'reconcile' });

    const [never] = await eventually(async () => (h.resultsFor('recon-1').length ? h.resultsFor('recon-1') : null), 20000);
    expect(never).toMatchObject({ status: 'FAILED', error: { code: 'PUBLISH_TIMED_OUT' } });
    await eventually(async () => h.resultsFor('happy-1').length === 2, 20000);
    expect(h.resultsFor('happy-1')[1]).toMatchObject({ status: 'PUBLISHED' });

    // The late original job finds the settled ledger and does not publish.
    await h.dispatch({ postId: 'recon-1', profileId: 'prof-gn', revision: 1, net: 'generalNet' });
    await eventually(async () => h.resultsFor('recon-1').length === 2, 20000);
    expect(h.resultsFor('recon-1')[1]).toMatchObject({ status: 'FAILED' });
    expect(await itemFor('recon-1:prof-gn:1')).toHaveLength(0);
  });

  it('publishes every job exactly once when a worker is SIGKILLed mid-batch and another takes over', async () => {
    await h.sandbox('POST', '/sandbox/admin/latency', { publishMs: 300 });
    const ids = Array.from({ length: 150 }, (_, i) => `crash-${i}`);
    for (const id of ids) h.fakes.addPost({ postId: id, profiles: { 'prof-gn': 'generalNet' } });
    await Promise.all(ids.map((id) => h.dispatch({ postId: id, profileId: 'prof-gn', revision: 1, net: 'generalNet' })));

    await eventually(async () => ids.filter((id) => h.resultsFor(id).length > 0).length >= 20, 30000, 50);
    await h.system.stopProcess('publisher', 'SIGKILL');
    const doneAtKill = ids.filter((id) => h.resultsFor(id).length > 0).length;
    await h.system.startProcess('publisher');

    await eventually(async () => ids.every((id) => h.resultsFor(id).length > 0), 90000, 200);
    await h.sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });
    expect(doneAtKill).toBeLessThan(ids.length);
    expect(ids.every((id) => h.resultsFor(id).every((r) => r.status === 'PUBLISHED'))).toBe(true);
    const all = await published();
    expect(all.duplicateKeys).toEqual([]);
    expect(all.keys.filter((k: { idempotencyKey: string }) => k.idempotencyKey.startsWith('crash-'))).toHaveLength(150);
  });

  it('finishes or hands back its in-flight jobs on SIGTERM and exits 0: none lost, none duplicated', async () => {
    await h.sandbox('POST', '/sandbox/admin/latency', { publishMs: 300 });
    const ids = Array.from({ length: 80 }, (_, i) => `term-${i}`);
    for (const id of ids) h.fakes.addPost({ postId: id, profiles: { 'prof-gn': 'generalNet' } });
    await Promise.all(ids.map((id) => h.dispatch({ postId: id, profileId: 'prof-gn', revision: 1, net: 'generalNet' })));

    await eventually(async () => ids.filter((id) => h.resultsFor(id).length > 0).length >= 10, 30000, 50);
    expect(await h.system.stopProcess('publisher', 'SIGTERM')).toBe(0);
    const doneAtStop = ids.filter((id) => h.resultsFor(id).length > 0).length;
    await h.system.startProcess('publisher');

    await eventually(async () => ids.every((id) => h.resultsFor(id).length > 0), 90000, 200);
    await h.sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });
    expect(doneAtStop).toBeLessThan(ids.length);
    expect(ids.every((id) => h.resultsFor(id).every((r) => r.status === 'PUBLISHED'))).toBe(true);
    const all = await published();
    expect(all.duplicateKeys).toEqual([]);
    expect(all.keys.filter((k: { idempotencyKey: string }) => k.idempotencyKey.startsWith('term-'))).toHaveLength(80);
  });
});
