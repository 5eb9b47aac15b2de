import { delayOf, FailureInjector, raiseInjected } from './failure-injector';

const scope = { operation: 'publish' as const, net: 'generalNet' as const, accountId: 'gn-own-1' };

describe('FailureInjector', () => {
  it('fires a count rule that many times, then retires it', () => {
    const f = new FailureInjector();
    f.add({ kind: 'server_error', count: 2 });
    expect(f.take(scope)?.kind).toBe('server_error');
    expect(f.take(scope)?.kind).toBe('server_error');
    expect(f.take(scope)).toBeUndefined();
    expect(f.list()).toEqual([]);
  });

  it('matches on network, account and operation', () => {
    const f = new FailureInjector();
    f.add({ kind: 'rate_limit', net: 'photoNet' });
    f.add({ kind: 'slow', accountId: 'gn-own-2' });
    f.add({ kind: 'revoked_token', operation: 'dailyMetrics' });
    expect(f.take(scope)).toBeUndefined();
    expect(f.take({ ...scope, net: 'photoNet' })?.kind).toBe('rate_limit');
    expect(f.take({ ...scope, accountId: 'gn-own-2' })?.kind).toBe('slow');
    expect(f.take({ ...scope, operation: 'dailyMetrics' })?.kind).toBe('revoked_token');
  });

  it('rejects content only on publishes', () => {
    const f = new FailureInjector();
    f.add({ kind: 'reject_content' });
    expect(f.take({ ...scope, operation: 'postMetrics' })).toBeUndefined();
    expect(f.take(scope)?.kind).toBe('reject_content');
  });

  it('applies a rate as a probability per request', () => {
    const draws = [0.1, 0.9, 0.4];
    const f = new FailureInjector(() => draws.shift()!);
    f.add({ kind: 'server_error', rate: 0.5 });
    expect(f.take(scope)).toBeDefined();
    expect(f.take(scope)).toBeUndefined();
    expect(f.take(scope)).toBeDefined();
  });

  it('turns rules into the errors networks send', () => {
    const f = new FailureInjector();
    f.add({ kind: 'rate_limit', retryAfterSeconds: 12, count: 1 });
    expect(() => raiseInjected(f.take(scope))).toThrow(expect.objectContaining({ status: 429, headers: { 'Retry-After': '12' } }));
    f.add({ kind: 'server_error', status: 503, count: 1 });
    expect(() => raiseInjected(f.take(scope))).toThrow(expect.objectContaining({ status: 503 }));
    f.add({ kind: 'revoked_token', count: 1 });
    expect(() => raiseInjected(f.take(scope))).toThrow(expect.objectContaining({ status: 401, code: 'TOKEN_REVOKED' }));
    f.add({ kind: 'reject_content', count: 1 });
    expect(() => raiseInjected(f.take(scope))).toThrow(expect.objectContaining({ status: 422, code: 'CONTENT_REJECTED' }));
    f.add({ kind: 'slow', latencyMs: 250, count: 1 });
    const slow = f.take(scope);
    expect(() => raiseInjected(slow)).not.toThrow();
    expect(delayOf(slow)).toBe(250);
  });
});
