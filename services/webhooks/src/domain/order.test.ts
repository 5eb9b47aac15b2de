import { comesBefore, orderOf } from './order';
import type { Delivery } from './ports';

const d = (id: string, seq: number, at = 0): Delivery => ({ id, orderSeq: seq, occurredAt: new Date(at) }) as Delivery;

describe('order of post events', () => {
  it('keys post events by endpoint and post, and leaves other events unordered', () => {
    expect(orderOf('we_1', 'post.published', { postId: 'p1', postVersion: 3 })).toEqual({ orderKey: 'we_1:p1', orderSeq: 6 });
    expect(orderOf('we_1', 'post.stage_changed', { postId: 'p1', postVersion: 3 })).toEqual({ orderKey: 'we_1:p1', orderSeq: 7 });
    expect(orderOf('we_1', 'media.ready', { mediaId: 'm1' })).toEqual({ orderKey: null, orderSeq: 0 });
  });

  it('puts a profile result before the stage change of the same version, and versions in order', () => {
    const published = orderOf('e', 'post.published', { postId: 'p', postVersion: 3 }).orderSeq;
    const stage = orderOf('e', 'post.stage_changed', { postId: 'p', postVersion: 3 }).orderSeq;
    const later = orderOf('e', 'post.published', { postId: 'p', postVersion: 4 }).orderSeq;
    expect(comesBefore(d('a', published), d('b', stage))).toBe(true);
    expect(comesBefore(d('b', stage), d('a', published))).toBe(false);
    expect(comesBefore(d('b', stage), d('c', later))).toBe(true);
  });

  it('breaks ties by time, then id', () => {
    expect(comesBefore(d('b', 1, 1), d('a', 1, 2))).toBe(true);
    expect(comesBefore(d('a', 1, 1), d('b', 1, 1))).toBe(true);
    expect(comesBefore(d('b', 1, 1), d('a', 1, 1))).toBe(false);
  });
});
