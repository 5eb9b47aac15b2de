import type { NetworkCode } from '@social/networks';
import type { AccessTokens } from './access-tokens';
import type { Account, AccountDirectory } from './account-directory';
import { delayOf, type FailureInjector, latencyBefore, raiseInjected, type RequestScope, sleep } from './failure-injector';
import type { PublishAttemptStore, PublishedPostStore } from './ports';
import type { SandboxClock } from './sandbox-clock';
import { accountNotFound } from './sandbox.errors';

/** What the use cases work with (their one deps object): ports and sandbox state, built once by the service. */
export interface SandboxContext {
  directory: AccountDirectory;
  tokens: AccessTokens;
  posts: PublishedPostStore;
  attempts: PublishAttemptStore;
  failures: FailureInjector;
  clock: SandboxClock;
  /** Base of the URLs the sandbox hands out (pictures, post links). */
  publicUrl(): string;
  /** Aborted on shutdown: injected delays end early so draining is quick. */
  shutdown: AbortSignal;
  /** The sandbox's time (the clock, which tests can shift). */
  now(): number;
  /** How long the network may work on a publish before it abandons it (SANDBOX_MAX_PROCESSING_MS or the catalog). */
  maxProcessingMs(net: NetworkCode): number;
}

export function requireAccount(ctx: SandboxContext, net: NetworkCode, accountId: string): Account {
  const account = ctx.directory.get(net, accountId);
  if (!account) throw accountNotFound(net, accountId);
  return account;
}

/**
 * Runs one network call under the failures tests switched on: a rule's error replaces the work
 * (phase before, after its latency) or follows it (phase after); a `slow` rule holds the answer back
 * after the work. Publishing has its own sequence (published-posts.use-cases), bounded in time.
 */
export async function underFailures<T>(ctx: SandboxContext, scope: RequestScope, work: () => Promise<T>): Promise<T> {
  const rule = ctx.failures.take(scope);
  await sleep(latencyBefore(rule), ctx.shutdown);
  raiseInjected(rule, 'before');
  const result = await work();
  raiseInjected(rule, 'after');
  await sleep(delayOf(rule), ctx.shutdown);
  return result;
}
