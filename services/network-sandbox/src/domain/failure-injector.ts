import { randomUUID } from 'node:crypto';
import type { ErrorDetail } from '@social/errors';
import type { NetworkCode, NetworkOperation } from '@social/networks';
import { injectedRateLimit, injectedRejection, injectedServerError, injectedTokenRevoked } from './sandbox.errors';

export const FAILURE_KINDS = ['rate_limit', 'server_error', 'slow', 'revoked_token', 'reject_content'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/**
 * When a rule acts: `before` the work (nothing is stored: a refusal, or an error the network answers
 * without acting) or `after` it (a server_error answered although the post was stored; `slow` holds
 * a finished answer back).
 */
export const FAILURE_PHASES = ['before', 'after'] as const;
export type FailurePhase = (typeof FAILURE_PHASES)[number];

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
  /**
   * `slow`: how long the answer is held after the work (5000 when absent). Other kinds: how long the
   * network works before the rule acts (0 when absent); for a publish it counts towards the
   * processing bound (SANDBOX_MAX_PROCESSING_MS).
   */
  latencyMs?: number;
  /** server_error only: 500, 502 or 503. */
  status?: number;
  /** `before` when absent; `slow` always acts after, and only server_error may act after. */
  phase?: FailurePhase;
}

export interface FailureRule extends FailureRuleInput {
  id: string;
  phase: FailurePhase;
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
    const rule: FailureRule = { ...input, phase: input.phase ?? (input.kind === 'slow' ? 'after' : 'before'), id: randomUUID(), hits: 0 };
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

/**
 * Why a rule cannot be honoured, as `details` (empty when it can). 503 is our model of a network
 * that did not act, so it never comes after the work.
 */
export function ruleProblems(input: FailureRuleInput): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (input.kind === 'slow' && input.phase === 'before') {
    problems.push({ path: '/body/phase', message: 'a slow rule always holds the answer after the work' });
  }
  if (input.phase === 'after' && input.kind !== 'slow' && input.kind !== 'server_error') {
    problems.push({ path: '/body/phase', message: `${input.kind} acts before the work; only server_error can come after it` });
  }
  if (input.phase === 'after' && input.kind === 'server_error' && input.status === 503) {
    problems.push({ path: '/body/status', message: '503 means the network did not act; use 500 or 502 after the work' });
  }
  return problems;
}

/** How long the network works before a (non-slow) rule acts. */
export function latencyBefore(rule: FailureRule | undefined): number {
  return rule && rule.kind !== 'slow' ? (rule.latencyMs ?? 0) : 0;
}

/** Whether the rule answers with an error before the work, so nothing is done. */
export function failsBefore(rule: FailureRule | undefined): boolean {
  return rule !== undefined && rule.kind !== 'slow' && rule.phase === 'before';
}

/** Throws the failure a rule stands for if it acts in this phase; `slow` rules throw nothing (see delayOf). */
export function raiseInjected(rule: FailureRule | undefined, phase: FailurePhase): void {
  if (rule?.phase !== phase) return;
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
