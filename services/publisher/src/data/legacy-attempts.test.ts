import { mergeLegacyAttempt, type LegacyAttempt } from './legacy-attempts';
import type { LedgerDoc } from './ledger.model';

type Entry = Omit<LedgerDoc, '_id'>;
const now = new Date('2026-11-27T12:00:00Z');
const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000);

const attempt = (state: LegacyAttempt['state'], revision: number, over: Partial<LegacyAttempt> = {}): LegacyAttempt => ({
  _id: `p1:prof1:${revision}`,
  workspaceId: 'w1',
  postId: 'p1',
  profileId: 'prof1',
  revision,
  net: 'generalNet',
  state,
  networkPostId: state === 'PUBLISHED' ? `gn_${revision}` : null,
  publishedAt: state === 'PUBLISHED' ? at(50 - revision) : null,
  error: state === 'FAILED' ? { code: `REFUSED_${revision}`, message: 'no' } : null,
  attempts: revision,
  startedAt: at(60 - revision),
  updatedAt: at(55 - revision),
  ...over,
});

function fold(attempts: LegacyAttempt[], start: Entry | null = null): Entry | null {
  let entry = start;
  for (const a of attempts) {
    const m = mergeLegacyAttempt(entry, a, now);
    if (m) entry = { ...(entry ?? {}), ...m } as Entry;
  }
  return entry;
}

const permutations = <T>(xs: T[]): T[][] =>
  xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));

/** What a job reads from an entry (the attempt id and timestamps aside). */
const meaning = (e: Entry | null) =>
  e && {
    state: e.state,
    revision: e.revision,
    networkPostId: e.networkPostId,
    idempotencyKeys: e.idempotencyKeys,
    fingerprint: e.fingerprint,
    error: e.error?.code ?? null,
    final: e.final,
    calledAt: e.calledAt,
  };

describe('merging an attempt of the release before the ledger into its (post, profile) entry', () => {
  it('PUBLISHED: the network post and when, final', () => {
    expect(fold([attempt('PUBLISHED', 1)])).toMatchObject({
      state: 'PUBLISHED',
      revision: 1,
      networkPostId: 'gn_1',
      publishedAt: at(49),
      final: true,
      workspaceId: 'w1',
      net: 'generalNet',
    });
  });

  it('STARTED: CALLING, asking by the key that release sent, with no fingerprint, from its first call until now', () => {
    expect(fold([attempt('STARTED', 1)])).toMatchObject({
      state: 'CALLING',
      idempotencyKeys: ['p1:prof1:1'],
      fingerprint: null,
      accountId: null,
      calledAt: at(59),
      calledUntil: now,
      final: false,
      error: null,
    });
  });

  it('FAILED and CANCELLED: NOT_PUBLISHED, final, with their reason', () => {
    expect(fold([attempt('FAILED', 1)])).toMatchObject({ state: 'NOT_PUBLISHED', final: true, error: { code: 'REFUSED_1' } });
    const cancelled = attempt('CANCELLED', 1, { error: { code: 'PUBLISH_CANCELLED', message: 'changed' } });
    expect(fold([cancelled])).toMatchObject({ state: 'NOT_PUBLISHED', final: true, error: { code: 'PUBLISH_CANCELLED' } });
  });

  it.each([
    ['a PUBLISHED earlier revision over a later one STARTED', [attempt('PUBLISHED', 1), attempt('STARTED', 2)], 'PUBLISHED', 2],
    ['a PUBLISHED earlier revision over a later one FAILED', [attempt('PUBLISHED', 1), attempt('FAILED', 2)], 'PUBLISHED', 2],
    ['a PUBLISHED later revision over an earlier one FAILED', [attempt('FAILED', 1), attempt('PUBLISHED', 2)], 'PUBLISHED', 2],
    ['a STARTED earlier revision over a later one FAILED', [attempt('STARTED', 1), attempt('FAILED', 2)], 'CALLING', 2],
    ['two STARTED revisions', [attempt('STARTED', 1), attempt('STARTED', 2)], 'CALLING', 2],
    ['the later of two FAILED revisions', [attempt('FAILED', 1), attempt('FAILED', 2)], 'NOT_PUBLISHED', 2],
    ['three revisions', [attempt('STARTED', 1), attempt('PUBLISHED', 2), attempt('FAILED', 3)], 'PUBLISHED', 3],
  ])('keeps %s, at the latest revision, in whatever order they come', (_, attempts, state, revision) => {
    const results = permutations(attempts).map((p) => meaning(fold(p)));
    expect(results[0]).toMatchObject({ state, revision });
    for (const r of results) expect(r).toEqual(results[0]);
  });

  it('asks by the key of every revision STARTED, from the first call of any', () => {
    expect(fold([attempt('STARTED', 2), attempt('STARTED', 1)])).toMatchObject({
      idempotencyKeys: ['p1:prof1:1', 'p1:prof1:2'],
      calledAt: at(59),
      calledUntil: now,
    });
    expect(fold([attempt('STARTED', 1), attempt('FAILED', 2)])).toMatchObject({ idempotencyKeys: ['p1:prof1:1'], error: null });
  });

  describe('into an entry this release wrote', () => {
    const own = (over: Partial<Entry>): Entry => ({
      workspaceId: 'w1',
      postId: 'p1',
      profileId: 'prof1',
      net: 'generalNet',
      state: 'CALLING',
      revision: 1,
      attemptId: 'own-attempt',
      attempts: 1,
      accountId: 'acc-1',
      calledAt: at(1),
      fingerprint: 'fp-own',
      idempotencyKeys: null,
      calledUntil: null,
      networkPostId: null,
      publishedAt: null,
      error: null,
      final: false,
      retryAt: null,
      updatedAt: at(1),
      ...over,
    });

    it('never weakens PUBLISHED', () => {
      const published = own({ state: 'PUBLISHED', networkPostId: 'gn_own', publishedAt: at(1), final: true });
      for (const a of [attempt('STARTED', 1), attempt('FAILED', 1), attempt('PUBLISHED', 1)]) {
        expect(mergeLegacyAttempt(published, a, now)).toBeNull();
      }
      expect(mergeLegacyAttempt(published, attempt('FAILED', 2), now)).toEqual({ revision: 2 });
    });

    it('makes it PUBLISHED when the old release published', () => {
      expect(fold([attempt('PUBLISHED', 1)], own({}))).toMatchObject({ state: 'PUBLISHED', networkPostId: 'gn_1' });
      expect(fold([attempt('PUBLISHED', 1)], own({ state: 'NOT_PUBLISHED', final: true }))).toMatchObject({ state: 'PUBLISHED' });
    });

    it('makes NOT_PUBLISHED CALLING when the old release may have published', () => {
      const notPublished = own({ state: 'NOT_PUBLISHED', final: false, retryAt: at(0), error: { code: 'NETWORK_TRANSIENT', message: '' } });
      expect(fold([attempt('STARTED', 1)], notPublished)).toMatchObject({
        state: 'CALLING',
        idempotencyKeys: ['p1:prof1:1'],
        retryAt: null,
      });
    });

    it('asks about both attempts when both may have published, and proves neither absent by content', () => {
      expect(fold([attempt('STARTED', 1)], own({}))).toMatchObject({
        state: 'CALLING',
        idempotencyKeys: ['p1:prof1', 'p1:prof1:1'],
        fingerprint: null,
        calledAt: at(59),
        calledUntil: now,
      });
    });

    it('leaves it alone for an attempt that created nothing', () => {
      expect(mergeLegacyAttempt(own({}), attempt('FAILED', 1), now)).toBeNull();
      expect(mergeLegacyAttempt(own({ state: 'NOT_PUBLISHED', final: true }), attempt('CANCELLED', 1), now)).toBeNull();
    });
  });
});
