import { AppError } from '@social/errors';
import { isPermanentError, markPermanent, PermanentError } from './permanent-error';

describe('isPermanentError', () => {
  it.each([
    ['a PermanentError', new PermanentError('post is gone'), true],
    ['an AppError with code PERMANENT', new AppError('PERMANENT', 422, 'no'), true],
    ['a catastrophic PERMANENT AppError', new AppError('PERMANENT', 500, 'no', { isCatastrophic: true }), false],
    ['an error marked permanent', markPermanent(new TypeError('bad input')), true],
    ['another AppError', new AppError('SERVICE_UNAVAILABLE', 503, 'later'), false],
    ['a plain error', new Error('timeout'), false],
    ['a thrown string', 'PERMANENT', false],
  ])('%s → %s', (_name, err, expected) => {
    expect(isPermanentError(err)).toBe(expected);
  });
});
