import { Router, type Request } from 'express';
import { asyncHandler, workspaceOf } from '@social/http';
import type { TargetKind } from '../domain/ports';
import type { ReadInsights } from '../domain/read-insights.use-case';

/** `/profile/{profileId}/insights*` and `/competitor/{competitorId}/insights*` (docs/decisions/0007-insights-paths.md). */
export function insightsRouter(read: ReadInsights): Router {
  const router = Router();
  const query = (req: Request) => req.query as Record<string, unknown>;
  const mount = (base: string, kind: TargetKind, param: string) => {
    router.get(
      `${base}/insights`,
      asyncHandler(async (req, res) => {
        res.json(await read.dailyInsights(workspaceOf(req), kind, String(req.params[param]), query(req)));
      }),
    );
    router.get(
      `${base}/insights/posts`,
      asyncHandler(async (req, res) => {
        res.json(await read.postInsights(workspaceOf(req), kind, String(req.params[param]), query(req)));
      }),
    );
    router.get(
      `${base}/insights/metrics`,
      asyncHandler(async (req, res) => {
        res.json(await read.metricCatalog(workspaceOf(req), kind, String(req.params[param]), query(req)));
      }),
    );
  };
  mount('/profile/:profileId', 'profile', 'profileId');
  mount('/competitor/:competitorId', 'competitor', 'competitorId');
  return router;
}
