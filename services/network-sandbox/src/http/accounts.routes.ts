import { Router } from 'express';
import { validationError } from '@social/errors';
import { asyncHandler } from '@social/http';
import type { ProfileKind } from '@social/networks';
import type { ProfileInfo } from '../domain/profile-info.use-case';
import { requireAccount, type SandboxContext } from '../domain/sandbox.context';
import { bearerOf, netOf, param, queryString } from './request-helpers';

const KINDS: readonly ProfileKind[] = ['own', 'business', 'creator', 'personal'];

/**
 * Accounts and tokens: the stand-in for each network's account picker and OAuth consent, used by
 * the admin CLI to connect profiles. Always on (not admin routes): a deployment connects profiles.
 */
export function accountsRoutes(ctx: SandboxContext, profileInfo: ProfileInfo): Router {
  const r = Router();

  r.get('/sandbox/:net/accounts', (req, res) => {
    const net = netOf(req);
    const kind = queryString(req, 'kind');
    if (kind !== undefined && !KINDS.includes(kind as ProfileKind)) {
      throw validationError([{ path: '/query/kind', message: `must be one of ${KINDS.join(', ')}` }]);
    }
    const now = ctx.now();
    const items = ctx.directory.list(net, kind as ProfileKind | undefined).map((a) => ctx.directory.profileOf(a, ctx.publicUrl(), now));
    res.json({ items });
  });

  r.post(
    '/sandbox/:net/accounts/:accountId/tokens',
    asyncHandler(async (req, res) => {
      const net = netOf(req);
      const accessToken = await ctx.tokens.issue(net, param(req, 'accountId'));
      const account = requireAccount(ctx, net, param(req, 'accountId'));
      res.status(201).json({ accessToken, profile: ctx.directory.profileOf(account, ctx.publicUrl(), ctx.now()) });
    }),
  );

  // What an account owner does when removing the app's access on the network.
  r.post(
    '/sandbox/:net/accounts/:accountId/tokens/revoke',
    asyncHandler(async (req, res) => {
      const revoked = await ctx.tokens.revokeAll(netOf(req), param(req, 'accountId'));
      res.json({ revoked });
    }),
  );

  r.get(
    '/sandbox/:net/profiles/:profileId',
    asyncHandler(async (req, res) => {
      res.json(await profileInfo.read({ net: netOf(req), profileId: param(req, 'profileId'), token: bearerOf(req) }));
    }),
  );

  return r;
}
