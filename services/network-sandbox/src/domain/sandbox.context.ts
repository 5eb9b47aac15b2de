import type { NetworkCode } from '@social/networks';
import type { PublishAttemptRepository } from '../data/publish-attempt.repository';
import type { PublishedPostRepository } from '../data/published-post.repository';
import type { AccessTokens } from './access-tokens';
import type { Account, AccountDirectory } from './account-directory';
import { delayOf, type FailureInjector, raiseInjected, type RequestScope, sleep } from './failure-injector';
import { accountNotFound } from './sandbox.errors';

/** What the use cases work with; built once by the service. */
export interface SandboxContext {
  directory: AccountDirectory;
  tokens: AccessTokens;
  posts: PublishedPostRepository;
  attempts: PublishAttemptRepository;
  failures: FailureInjector;
  /** Base of the URLs the sandbox hands out (pictures, post links). */
  publicUrl(): string;
  /** Aborted on shutdown: injected delays end early so draining is quick. */
  shutdown: AbortSignal;
  now(): number;
}

export function requireAccount(ctx: SandboxContext, net: NetworkCode, accountId: string): Account {
  const account = ctx.directory.get(net, accountId);
  if (!account) throw accountNotFound(net, accountId);
  return account;
}

/**
 * Runs one network call under the failures tests switched on: an injected error replaces the work,
 * a `slow` rule holds the answer back after the work is done (so a slow publish still publishes).
 */
export async function underFailures<T>(ctx: SandboxContext, scope: RequestScope, work: () => Promise<T>): Promise<T> {
  const rule = ctx.failures.take(scope);
  raiseInjected(rule);
  const result = await work();
  await sleep(delayOf(rule), ctx.shutdown);
  return result;
}
