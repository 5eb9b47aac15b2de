import type { NetworkCode, NetworkProfile } from '@social/networks';
import { type SandboxContext, underFailures } from './sandbox.context';
import { profileNotFound } from './sandbox.errors';

/** A profile as the network shows it: public profiles to anyone, a personal one only to itself. */
export class ProfileInfo {
  constructor(private readonly ctx: SandboxContext) {}

  async read(cmd: { net: NetworkCode; profileId: string; token: string | undefined }): Promise<NetworkProfile> {
    const ctx = this.ctx;
    const account = ctx.directory.get(cmd.net, cmd.profileId);
    if (!account) throw profileNotFound(cmd.net, cmd.profileId);
    return underFailures(ctx, { operation: 'profileInfo', net: cmd.net, accountId: account.id }, async () => {
      const reader = await ctx.tokens.readerOf(account, cmd.token);
      if (reader === 'public' && account.kind === 'personal') throw profileNotFound(cmd.net, cmd.profileId);
      return ctx.directory.profileOf(account, ctx.publicUrl(), ctx.now());
    });
  }
}
