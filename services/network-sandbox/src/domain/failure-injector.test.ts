import { delayOf, failsBefore, FailureInjector, latencyBefore, raiseInjected, ruleProblems } from './failure-injector';

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
    expect(() => raiseInjected(f.take(scope), 'before')).toThrow(
      expect.objectContaining({ status: 429, headers: { 'Retry-After': '12' } }),
    );
    f.add({ kind: 'server_error', status: 503, count: 1 });
    expect(() => raiseInjected(f.take(scope), 'before')).toThrow(expect.objectContaining({ status: 503 }));
    f.add({ kind: 'revoked_token', count: 1 });
    expect(() => raiseInjected(f.take(scope), 'before')).toThrow(expect.objectContaining({ status: 401, code: 'TOKEN_REVOKED' }));
    f.add({ kind: 'reject_content', count: 1 });
    expect(() => raiseInjected(f.take(scope), 'before')).toThrow(expect.objectContaining({ status: 422, code: 'CONTENT_REJECTED' }));
    f.add({ kind: 'slow', latencyMs: 250, count: 1 });
    const slow = f.take(scope);
    expect(() => raiseInjected(slow, 'before')).not.toThrow();
    expect(() => raiseInjected(slow, 'after')).not.toThrow();
    expect(delayOf(slow)).toBe(250);
  });

  it('acts before the work unless told otherwise; server_error can act after it', () => {
    const f = new FailureInjector();
    expect(f.add({ kind: 'rate_limit' }).phase).toBe('before');
    expect(f.add({ kind: 'slow' }).phase).toBe('after');
    f.clear();
    f.add({ kind: 'server_error', status: 502, phase: 'after', latencyMs: 40, count: 1 });
    const after = f.take(scope);
    expect(failsBefore(after)).toBe(false);
    expect(latencyBefore(after)).toBe(40);
    expect(() => raiseInjected(after, 'before')).not.toThrow();
    expect(() => raiseInjected(after, 'after')).toThrow(expect.objectContaining({ status: 502 }));
    f.add({ kind: 'server_error', count: 1 });
    expect(failsBefore(f.take(scope))).toBe(true);
    f.add({ kind: 'slow', latencyMs: 300, count: 1 });
    const slow = f.take(scope);
    expect([failsBefore(slow), latencyBefore(slow), delayOf(slow)]).toEqual([false, 0, 300]);
  });

  it('refuses rules that cannot happen: 503 after the work, slow before it, a refusal after it', () => {
    expect(ruleProblems({ kind: 'server_error', status: 500, phase: 'after' })).toEqual([]);
    expect(ruleProblems({ kind: 'server_error', status: 503, phase: 'after' })).toEqual([
      { path: '/body/status', message: expect.stringContaining('did not act') },
    ]);
    expect(ruleProblems({ kind: 'slow', phase: 'before' })).toEqual([{ path: '/body/phase', message: expect.any(String) }]);
    expect(ruleProblems({ kind: 'rate_limit', phase: 'after' })).toEqual([{ path: '/body/phase', message: expect.any(String) }]);
    expect(ruleProblems({ kind: 'slow', phase: 'after' })).toEqual([]);
  });
});
