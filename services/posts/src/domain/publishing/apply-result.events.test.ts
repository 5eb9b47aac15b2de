import type { PublishCompleted } from '@social/contracts';
import type { EventDefinition, EventEmitter } from '@social/events';
import type { PlanEntry, PostRecord } from '../posts/post.types';
import { ApplyPublishResult } from './apply-result.use-case';
import type { PublishingPosts } from './ports';

const now = new Date('2030-01-01T00:00:00Z');
const entry = (profileId: string, status: PlanEntry['status']): PlanEntry => ({
  profileId,
  status,
  revision: 2,
  networkPostId: null,
  reason: null,
});

function setup(plan: PlanEntry[]) {
  let stored = {
    id: 'p1',
    workspaceId: 'w1',
    stage: 'SCHEDULED',
    revision: 2,
    plan,
    stageHistory: [],
    version: 7,
    profileNets: { a: 'generalNet', b: 'photoNet' },
    updatedAt: now,
  } as unknown as PostRecord;
  const posts = {
    modify: async (_ws: string, _id: string, change: (p: PostRecord) => PostRecord | null) => {
      const next = change(stored);
      if (next) stored = next;
      return next ?? stored;
    },
  } as unknown as PublishingPosts;
  const emitted: { type: string; payload: any; ws: string }[] = [];
  const events: EventEmitter = {
    emit: <T>(def: EventDefinition<T>, payload: T, ws: string) => void emitted.push({ type: def.type, payload, ws }),
  };
  return { apply: new ApplyPublishResult(posts, () => now, events), emitted };
}

const result = (profileId: string, status: PublishCompleted['status']): PublishCompleted => ({
  postId: 'p1',
  profileId,
  revision: 2,
  status,
  attempts: 1,
  ...(status === 'PUBLISHED'
    ? { networkPostId: `n-${profileId}`, publishedAt: now.toISOString() }
    : { error: { code: 'NETWORK_REJECTED', message: 'too long' } }),
});

describe('domain events of publish results', () => {
  it('emits post.published per profile, then the stage change with the same post version', async () => {
    const { apply, emitted } = setup([entry('a', 'PENDING'), entry('b', 'PENDING')]);
    await apply.execute('w1', result('a', 'PUBLISHED'));
    await apply.execute('w1', result('b', 'PUBLISHED'));
    expect(emitted.map((e) => `${e.type}:${e.payload.profileId ?? e.payload.to}:${e.payload.postVersion}`)).toEqual([
      'post.published:a:8',
      'post.published:b:9',
      'post.stage_changed:PUBLISHED:9',
    ]);
    expect(emitted[0]).toMatchObject({ ws: 'w1', payload: { postId: 'p1', net: 'generalNet', networkPostId: 'n-a' } });
  });

  it('emits post.failed with the error, and nothing for a repeated result', async () => {
    const { apply, emitted } = setup([entry('a', 'PUBLISHED'), entry('b', 'PENDING')]);
    await apply.execute('w1', result('b', 'FAILED'));
    await apply.execute('w1', result('b', 'FAILED'));
    expect(emitted.map((e) => e.type)).toEqual(['post.failed', 'post.stage_changed']);
    expect(emitted[0]!.payload).toMatchObject({
      profileId: 'b',
      net: 'photoNet',
      error: { code: 'NETWORK_REJECTED', message: 'too long' },
    });
    expect(emitted[1]!.payload).toMatchObject({ from: 'SCHEDULED', to: 'PUBLISHED_FAILED', operation: 'publishResult' });
  });
});
