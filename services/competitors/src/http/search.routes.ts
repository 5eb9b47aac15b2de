import { Router } from 'express';
import { validationError, type ErrorDetail } from '@social/errors';
import { asyncHandler, workspaceOf } from '@social/http';
import { NETWORK_CODES, isNetworkCode } from '@social/networks';
import type { SearchArea, SearchProfiles } from '../domain/search.use-case';
import { stringParam } from './query.rules';

const AREAS: readonly SearchArea[] = ['insights', 'posts'];

function parseSearchQuery(query: Record<string, unknown>) {
  const details: ErrorDetail[] = [];
  const problem = (key: string) => details.some((d) => d.path === `/query/${key}`);
  const text = stringParam(query, 'query', details)?.trim();
  if (!text && !problem('query')) details.push({ path: '/query/query', message: 'is required (a name or a username)' });
  const net = stringParam(query, 'net', details);
  if (net === undefined && !problem('net')) details.push({ path: '/query/net', message: 'is required (one network code)' });
  if (net !== undefined && !isNetworkCode(net)) details.push({ path: '/query/net', message: `must be one of ${NETWORK_CODES.join(', ')}` });
  const area = stringParam(query, 'area', details) ?? 'insights';
  if (!AREAS.includes(area as SearchArea)) details.push({ path: '/query/area', message: `must be one of ${AREAS.join(', ')}` });
  if (details.length > 0) throw validationError(details);
  return { query: text!, net: net as (typeof NETWORK_CODES)[number], area: area as SearchArea };
}

export function searchRoutes(search: SearchProfiles): Router {
  const r = Router();
  r.get(
    '/search/profiles',
    asyncHandler(async (req, res) => {
      res.json(await search.search(workspaceOf(req), parseSearchQuery(req.query)));
    }),
  );
  return r;
}
