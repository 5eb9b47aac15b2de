import { Router } from 'express';
import { asyncHandler } from '@social/http';
import type { SearchProfiles } from '../domain/search-profiles.use-case';
import { bearerOf, netOf, param, queryString } from './request-helpers';

export function searchRoutes(search: SearchProfiles): Router {
  const r = Router();
  r.get(
    '/sandbox/:net/accounts/:accountId/search',
    asyncHandler(async (req, res) => {
      res.json(
        await search.search({
          net: netOf(req),
          accountId: param(req, 'accountId'),
          token: bearerOf(req),
          query: queryString(req, 'query') ?? '',
        }),
      );
    }),
  );
  return r;
}
