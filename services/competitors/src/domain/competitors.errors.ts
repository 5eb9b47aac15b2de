import { AppError } from '@social/errors';

export const profileNotFound = () => new AppError('PROFILE_NOT_FOUND', 404, 'Profile was not found in this workspace.');

export const competitorNotFound = () => new AppError('COMPETITOR_NOT_FOUND', 404, 'Competitor was not found in this workspace.');

export const planLimitReached = (plan: string, limit: number) =>
  new AppError(
    'PLAN_LIMIT_REACHED',
    403,
    `The ${plan} plan allows ${limit} competitor${limit === 1 ? '' : 's'}; remove one or upgrade the plan to add another.`,
  );

export const searchNotSupported = (netName: string) =>
  new AppError(
    'SEARCH_NOT_SUPPORTED',
    400,
    `${netName} has no public profile search, so its profiles cannot be searched or added as competitors.`,
    {
      details: [{ path: '/query/net', message: 'has no profile search' }],
    },
  );

export const noConnectedProfile = (netName: string) =>
  new AppError(
    'NO_CONNECTED_PROFILE',
    400,
    `Searching ${netName} needs a connected ${netName} profile in this workspace; connect one first (pnpm admin profile connect).`,
    { details: [{ path: '/query/net', message: 'no connected profile for this network' }] },
  );

export const connectedProfileNeedsReconnect = (netName: string) =>
  new AppError(
    'PROFILE_AUTH_ERROR',
    400,
    `${netName} refuses the access of this workspace's connected profile; reconnect it before searching.`,
    { details: [{ path: '/query/net', message: 'the connected profile has statusLevel ERROR' }] },
  );

export const searchFoundNothing = (query: string, netName: string, byUsername: boolean) =>
  new AppError(
    'SEARCH_NO_PROFILE',
    400,
    byUsername
      ? `No business or creator profile with the username "${query}" exists on ${netName}.`
      : `No business or creator profile on ${netName} matches "${query}".`,
    { details: [{ path: '/query/query', message: 'no business or creator profile found' }] },
  );

export const searchFoundPersonal = (query: string, netName: string) =>
  new AppError(
    'SEARCH_PERSONAL_PROFILE',
    400,
    `"${query}" is a personal account on ${netName}; only business or creator profiles can be tracked.`,
    { details: [{ path: '/query/query', message: 'is a personal account' }] },
  );

export const publicProfileNotFound = () =>
  new AppError(
    'PUBLIC_PROFILE_NOT_FOUND',
    404,
    'No public business or creator profile has this profileId; take the id from GET /search/profiles.',
  );

export const accountNotConnectable = (accountId: string, reason: string) =>
  new AppError('ACCOUNT_NOT_CONNECTABLE', 400, `Account ${accountId} cannot be connected: ${reason}`, {
    details: [{ path: '/network_account_id', message: 'is not an own account of this network' }],
  });

export const profileNotPublishReady = () =>
  new AppError('PROFILE_AUTH_ERROR', 409, "The network refuses this profile's access token; reconnect the profile.");
