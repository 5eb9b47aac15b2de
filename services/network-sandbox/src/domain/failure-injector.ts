import { randomUUID } from 'node:crypto';
import type { NetworkCode, NetworkOperation } from '@social/networks';
import { injectedRateLimit, injectedRejection, injectedServerError, injectedTokenRevoked } from './sandbox.errors';

export const FAILURE_KINDS = ['rate_limit', 'server_error', 'slow', 'revoked_token', 'reject_content'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface FailureRuleInput {
  kind: FailureKind;
  net?: NetworkCode;
  accountId?: string;
  /** Only this operation (the adapter method name); all of them when absent. */
  operation?: NetworkOperation;
  /** Probability per matching request, 0..1; 1 when absent. */
  rate?: number;
  /** Fire this many times, then retire; unlimited when absent. */
  count?: number;
  retryAfterSeconds?: number;
  latencyMs?: number;
  /** server_error only: 500, 502 or 503. */
  status?: number;
}

export interface FailureRule extends FailureRuleInput {
  id: string;
  /** Times still to fire (count rules). */
  remaining?: number;
  hits: number;
}

export interface RequestScope {
  operation: NetworkOperation;
  net: NetworkCode;
  accountId: string;
}

/**
 * Failures switched on by tests. Held in memory: they are test settings of one sandbox process,
 * and the check sits on every request's hot path.
 */
export class FailureInjector {
  private rules: FailureRule[] = [];
  private publishLatencyMs = 0;

  constructor(private readonly random: () => number = Math.random) {}

  add(input: FailureRuleInput): FailureRule {
    const rule: FailureRule = { ...input, id: randomUUID(), hits: 0 };
    if (input.count !== undefined) rule.remaining = input.count;
    this.rules.push(rule);
    return { ...rule };
  }

  list(): FailureRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    return this.rules.length < before;
  }

  clear(): number {
    const n = this.rules.length;
    this.rules = [];
    return n;
  }

  setPublishLatency(ms: number): void {
    this.publishLatencyMs = ms;
  }

  get publishLatency(): number {
    return this.publishLatencyMs;
  }

  /**
   * The first rule that fires for this request (a count rule is used up by firing), or undefined.
   * Rejecting content only means something for a publish.
   */
  take(scope: RequestScope): FailureRule | undefined {
    for (const rule of this.rules) {
      if (!this.matches(rule, scope)) continue;
      if (this.random() >= (rule.rate ?? 1)) continue;
      rule.hits += 1;
      if (rule.remaining !== undefined) {
        rule.remaining -= 1;
        if (rule.remaining <= 0) this.rules = this.rules.filter((r) => r !== rule);
      }
      return { ...rule };
    }
    return undefined;
  }

  private matches(rule: FailureRule, s: RequestScope): boolean {
    if (rule.net && rule.net !== s.net) return false;
    if (rule.accountId && rule.accountId !== s.accountId) return false;
    if (rule.operation && rule.operation !== s.operation) return false;
    if (rule.kind === 'reject_content' && s.operation !== 'publish') return false;
    return true;
  }
}

/** Throws the failure a rule stands for; `slow` rules throw nothing (see delayOf). */
export function raiseInjected(rule: FailureRule | undefined): void {
  switch (rule?.kind) {
    case 'rate_limit':
      throw injectedRateLimit(rule.retryAfterSeconds ?? 30);
    case 'server_error':
      throw injectedServerError(rule.status ?? 500);
    case 'revoked_token':
      throw injectedTokenRevoked();
    case 'reject_content':
      throw injectedRejection();
    default:
  }
}

/** How long a `slow` rule holds the answer back (after the work is done, so a publish happens). */
export function delayOf(rule: FailureRule | undefined): number {
  return rule?.kind === 'slow' ? (rule.latencyMs ?? 5000) : 0;
}

/** A sleep that ends early when the service shuts down, so draining is not held up by test delays. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
