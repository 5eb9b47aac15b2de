import { eventually, sleep } from '@social/testkit';
import { PublisherHarness } from './support/harness';

// Reconciling an unknown outcome by the account's recent posts (generalNet keeps no idempotency
// keys), where what the listing shows is not only the post being reconciled. Settings as in
// production: the settle time is longer than any call can take (network timeout), so "not found
// after it" is meant to prove the attempt created nothing.
let h: PublisherHarness;

beforeAll(async () => {
  h = await PublisherHarness.start({
    NETWORK_TIMEOUT_MS: '9000',
    SANDBOX_MAX_PROCESSING_MS: '1500',
    PUBLISHER_OUTCOME_SETTLE_MS: '10000',
    PUBLISHER_MAX_ATTEMPTS: '8',
  });
  await h.connect('prof-a', 'generalNet', 'gn-own-1');
  await h.connect('prof-b', 'generalNet', 'gn-own-2');
}, 180000);

afterEach(async () => {
  await h.sandbox('DELETE', '/sandbox/admin/failures');
  await h.sandbox('POST', '/sandbox/admin/latency', { publishMs: 0 });
});

afterAll(async () => {
  await h?.stop();
}, 60000);

const failures = (rule: Record<string, unknown>) => h.sandbox('POST', '/sandbox/admin/failures', rule);
const outcome = (postId: string, timeoutMs = 60000) => eventually(async () => h.outcomesFor(postId)[0], timeoutMs, 100);

describe('reconciling by content', () => {
  it('finds its post under more than 2,000 newer posts of the account: not found in the first pages is no proof', async () => {
    // The post is stored, then answered 500; every question about it fails for now.
    const unaskable = await failures({ kind: 'server_error', status: 503, accountId: 'gn-own-2', operation: 'recentPosts' });
    await failures({ kind: 'server_error', status: 500, phase: 'after', accountId: 'gn-own-2', operation: 'publish', count: 1 });
    await h.dispatch(h.job('buried', 'prof-b', 'generalNet', { caption: 'buried under newer posts' }));
    await eventually(async () => h.resultsFor('buried').some((r) => r.status === 'UNKNOWN'), 20000);
    expect(await h.created('buried', 'prof-b')).toBe(1);

    // Meanwhile the account publishes a lot (another tool, a busy newsroom, our own burst).
    const { accessToken } = await h.sandbox('POST', '/sandbox/generalNet/accounts/gn-own-2/tokens');
    const filler = Array.from({ length: 2050 }, (_, i) => i);
    for (let i = 0; i < filler.length; i += 50) {
      await Promise.all(
        filler.slice(i, i + 50).map(async (n) => {
          const res = await fetch(`${h.sandboxUrl}/sandbox/generalNet/accounts/gn-own-2/posts`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}`, 'idempotency-key': `filler-${n}` },
            body: JSON.stringify({ type: 'STATUS', caption: `filler ${n}` }),
          });
          if (res.status !== 201) throw new Error(`filler ${n}: ${res.status} ${await res.text()}`);
        }),
      );
    }

    await h.sandbox('DELETE', `/sandbox/admin/failures/${unaskable.id}`);

    expect(await outcome('buried', 120000)).toMatchObject({ status: 'PUBLISHED' });
    await sleep(1000);
    expect(await h.created('buried', 'prof-b')).toBe(1);
  }, 240000);

  it("does not take another of our posts' network post while that post's own call may still be answered", async () => {
    // Two of our posts with the same text on one account. B's call is refused before the network
    // acts (a 500 that hides nothing, but the worker cannot know): its outcome is unknown, and its
    // questions fail for now.
    const unaskable = await failures({ kind: 'server_error', status: 503, accountId: 'gn-own-1', operation: 'recentPosts' });
    await failures({ kind: 'server_error', status: 500, accountId: 'gn-own-1', operation: 'publish', count: 1 });
    await h.dispatch(h.job('same-text-b', 'prof-a', 'generalNet', { caption: 'the same announcement' }));
    // Past its settle time B is asked about again and again (each failed question reported once).
    await eventually(async () => h.resultsFor('same-text-b').filter((r) => r.status === 'UNKNOWN').length >= 2, 30000);

    // A, same text, is stored at once but its answer is held for 6 s (within the worker's timeout).
    await failures({ kind: 'slow', latencyMs: 6000, accountId: 'gn-own-1', operation: 'publish', count: 1 });
    await h.dispatch(h.job('same-text-a', 'prof-a', 'generalNet', { caption: 'the same announcement' }));
    await eventually(async () => (await h.created('same-text-a', 'prof-a')) === 1, 10000);

    // B's questions go through while A's answer is still on its way.
    await h.sandbox('DELETE', `/sandbox/admin/failures/${unaskable.id}`);

    const a = await outcome('same-text-a');
    const b = await outcome('same-text-b');
    expect(a).toMatchObject({ status: 'PUBLISHED' });
    expect(b).toMatchObject({ status: 'PUBLISHED' });
    // Each is its own network post: B's call created nothing, so B must publish (once) itself.
    expect(b.networkPostId).not.toBe(a.networkPostId);
    expect([await h.created('same-text-a', 'prof-a'), await h.created('same-text-b', 'prof-a')]).toEqual([1, 1]);
  }, 120000);
});
