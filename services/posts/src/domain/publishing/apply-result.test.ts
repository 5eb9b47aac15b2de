import type { PublishCompleted } from '@social/contracts';
import type { PlanEntry, PostRecord } from '../posts/post.types';
import { applyResult } from './apply-result';

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
