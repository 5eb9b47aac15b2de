import type { Request } from 'express';
import { Router } from 'express';
import { validationError } from '@social/errors';
import { asyncHandler, csv } from '@social/http';
import type { MetricsQuery, ReadDailyMetrics } from '../domain/daily-metrics.use-case';
import type { ReadPostMetrics } from '../domain/post-metrics.use-case';
import { bearerOf, netOf, param, queryString } from './request-helpers';

/** Common query of both metric reads. `asOf` (ISO time) is a sandbox-only aid for tests. */
function metricsQuery(req: Request): MetricsQuery {
  const asOf = queryString(req, 'asOf');
  const asOfMs = asOf === undefined ? undefined : Date.parse(asOf);
  if (asOfMs !== undefined && Number.isNaN(asOfMs)) {
    throw validationError([{ path: '/query/asOf', message: 'must be an ISO 8601 time' }]);
  }
  return {
    net: netOf(req),
    accountId: param(req, 'accountId'),
    token: bearerOf(req),
    since: queryString(req, 'since'),
    until: queryString(req, 'until'),
    metrics: csv(queryString(req, 'metrics') ?? '') ?? [],
    ...(asOfMs !== undefined ? { asOfMs } : {}),
  };
}

export function metricsRoutes(metrics: { daily: ReadDailyMetrics; posts: ReadPostMetrics }): Router {
  const r = Router();

  r.get(
    '/sandbox/:net/accounts/:accountId/metrics/daily',
    asyncHandler(async (req, res) => {
      res.json(await metrics.daily.read(metricsQuery(req)));
    }),
  );

  r.get(
    '/sandbox/:net/accounts/:accountId/metrics/posts',
    asyncHandler(async (req, res) => {
      const limit = queryString(req, 'limit');
      res.json(
        await metrics.posts.read({
          ...metricsQuery(req),
          cursor: queryString(req, 'cursor'),
          ...(limit !== undefined ? { limit: /^\d+$/.test(limit) ? Number(limit) : NaN } : {}),
        }),
      );
    }),
  );

  return r;
}
