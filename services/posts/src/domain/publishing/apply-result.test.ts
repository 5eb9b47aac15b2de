import type { PublishCompleted } from '@social/contracts';
import type { PlanEntry, PostRecord } from '../posts/post.types';
import { applyResult, OUTCOME_UNKNOWN } from './apply-result';

const now = new Date('2030-01-01T00:00:00Z');
const entry = (profileId: string, status: PlanEntry['status'], revision = 2): PlanEntry => ({
  profileId,
  status,
  revision,
  networkPostId: null,
  reason: null,
});
const post = (plan: PlanEntry[], stage: PostRecord['stage'] = 'SCHEDULED'): PostRecord =>
  ({ id: 'p1', workspaceId: 'w1', stage, revision: 2, plan, stageHistory: [], version: 7 }) as unknown as PostRecord;
const result = (profileId: string, status: PublishCompleted['status'], revision = 2): PublishCompleted => ({
  postId: 'p1',
  profileId,
  revision,
  status,
  attempts: 1,
  ...(status === 'PUBLISHED' ? { networkPostId: `n-${profileId}` } : { error: { code: 'NETWORK_REJECTED', message: 'no' } }),
});

describe('applying publish results', () => {
  it('settles one profile and keeps the stage while others are PENDING', () => {
    const next = applyResult(post([entry('a', 'PENDING'), entry('b', 'PENDING')]), result('a', 'PUBLISHED'), now)!;
    expect(next.plan.map((e) => e.status)).toEqual(['PUBLISHED', 'PENDING']);
    expect(next.stage).toBe('SCHEDULED');
    expect(next.version).toBe(8);
  });

  it('moves to PUBLISHED when every profile published, PUBLISHED_FAILED when one failed, with the reason kept', () => {
    expect(applyResult(post([entry('a', 'PUBLISHED'), entry('b', 'PENDING')]), result('b', 'PUBLISHED'), now)!.stage).toBe('PUBLISHED');
    const failed = applyResult(post([entry('a', 'PUBLISHED'), entry('b', 'PENDING')]), result('b', 'FAILED'), now)!;
    expect(failed.stage).toBe('PUBLISHED_FAILED');
    expect(failed.plan[1]).toMatchObject({ status: 'FAILED', error: { code: 'NETWORK_REJECTED', message: 'no' } });
    expect(failed.stageHistory).toEqual([expect.objectContaining({ from: 'SCHEDULED', to: 'PUBLISHED_FAILED' })]);
  });

  it('ignores a repeat, and a FAILED or CANCELLED result of another revision', () => {
    expect(applyResult(post([entry('a', 'PUBLISHED')]), result('a', 'PUBLISHED'), now)).toBeNull();
    expect(applyResult(post([entry('a', 'FAILED')]), result('a', 'FAILED'), now)).toBeNull();
    expect(applyResult(post([entry('a', 'PENDING', 3)]), result('a', 'CANCELLED', 2), now)).toBeNull();
    expect(applyResult(post([entry('a', 'PENDING')]), result('unknown', 'PUBLISHED'), now)).toBeNull();
  });

  it('lets a confirmed publish win over a watchdog FAILED and lifts PUBLISHED_FAILED to PUBLISHED', () => {
    const next = applyResult(post([entry('a', 'FAILED')], 'PUBLISHED_FAILED'), result('a', 'PUBLISHED'), now)!;
    expect(next.plan[0]).toMatchObject({ status: 'PUBLISHED', networkPostId: 'n-a', error: null });
    expect(next.stage).toBe('PUBLISHED');
  });
});

describe('results whose outcome is unknown', () => {
  it('keep the profile PENDING with the reason shown, once, and a later PUBLISHED settles it', () => {
    const unknown: PublishCompleted = { ...result('a', 'UNKNOWN'), error: { code: 'NETWORK_UNKNOWN_OUTCOME', message: 'timed out' } };
    const waiting = applyResult(post([entry('a', 'PENDING')]), unknown, now)!;
    expect(waiting.stage).toBe('SCHEDULED');
    expect(waiting.plan[0]).toMatchObject({ status: 'PENDING', error: { code: OUTCOME_UNKNOWN, message: 'timed out' } });
    expect(applyResult(waiting, unknown, now)).toBeNull();

    const settled = applyResult(waiting, result('a', 'PUBLISHED'), now)!;
    expect(settled.plan[0]).toMatchObject({ status: 'PUBLISHED', error: null });
    expect(settled.stage).toBe('PUBLISHED');
  });

  it('never move a settled profile back', () => {
    expect(applyResult(post([entry('a', 'FAILED')], 'PUBLISHED_FAILED'), result('a', 'UNKNOWN'), now)).toBeNull();
    expect(applyResult(post([entry('a', 'PUBLISHED')], 'PUBLISHED'), result('a', 'UNKNOWN'), now)).toBeNull();
  });

  it('leaves nothing to dispatch or watch once every profile is settled', () => {
    const dispatched = {
      ...post([entry('a', 'PUBLISHED'), entry('b', 'PENDING')]),
      dispatch: { state: 'DISPATCHED' },
    } as unknown as PostRecord;
    expect(applyResult(dispatched, result('b', 'PUBLISHED'), now)!.dispatch).toBeNull();
    const half = { ...post([entry('a', 'PENDING'), entry('b', 'PENDING')]), dispatch: { state: 'DISPATCHED' } } as unknown as PostRecord;
    expect(applyResult(half, result('b', 'PUBLISHED'), now)!.dispatch).toEqual({ state: 'DISPATCHED' });
  });
});
