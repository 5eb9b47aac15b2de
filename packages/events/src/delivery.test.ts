import { AppError } from '@social/errors';
import { classifyFailure } from './delivery';
import { markPermanent, PermanentError } from './permanent-error';

describe('classifyFailure', () => {
  it('retries an ordinary error while attempts remain', () => {
    expect(classifyFailure(new Error('network is down'), { isLastAttempt: false })).toBe('retry');
  });

  it('gives up on the last attempt', () => {
    expect(classifyFailure(new Error('network is down'), { isLastAttempt: true })).toBe('last-attempt');
  });

  it('never retries a permanent error, however many attempts remain', () => {
    expect(classifyFailure(new PermanentError('post was deleted'), { isLastAttempt: false })).toBe('permanent');
    expect(classifyFailure(markPermanent(new Error('bad input')), { isLastAttempt: false })).toBe('permanent');
    expect(classifyFailure(new AppError('PERMANENT', 422, 'gone'), { isLastAttempt: true })).toBe('permanent');
  });

  it('treats a thrown non-error like any other failure', () => {
    expect(classifyFailure('boom', { isLastAttempt: false })).toBe('retry');
  });
});
