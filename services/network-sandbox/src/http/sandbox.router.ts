import { type NextFunction, type Request, type Response, Router } from 'express';
import { errorBody } from '@social/errors';
import { jsonBody } from '@social/http';
import type { ReadDailyMetrics } from '../domain/daily-metrics.use-case';
import type { ReadPostMetrics } from '../domain/post-metrics.use-case';
import type { ProfileInfo } from '../domain/profile-info.use-case';
import type { PublishedPostsUseCases } from '../domain/published-posts.use-cases';
import type { ListRecentPosts } from '../domain/recent-posts.use-case';
import type { SandboxContext } from '../domain/sandbox.context';
import { InjectedFailure } from '../domain/sandbox.errors';
import type { SearchProfiles } from '../domain/search-profiles.use-case';
import { log } from '../logger';
import { accountsRoutes } from './accounts.routes';
import { adminRoutes } from './admin.routes';
import { metricsRoutes } from './metrics.routes';
import { picturesRoutes } from './pictures.routes';
import { publishRoutes } from './publish.routes';
import { searchRoutes } from './search.routes';

/** The use cases behind the routes, built once by the service (network-sandbox-service.ts). */
export interface SandboxUseCases {
  profileInfo: ProfileInfo;
  search: SearchProfiles;
  published: PublishedPostsUseCases;
  recentPosts: ListRecentPosts;
  dailyMetrics: ReadDailyMetrics;
  postMetrics: ReadPostMetrics;
}

/** Every route of the sandbox; served at the root (it is not behind the gateway). */
export function sandboxRouter(ctx: SandboxContext, useCases: SandboxUseCases, opts: { admin: boolean }): Router {
  const r = Router();
  r.use('/sandbox', jsonBody('5mb'));
  r.use(picturesRoutes(ctx));
  if (opts.admin) r.use(adminRoutes(ctx));
  r.use(accountsRoutes(ctx, useCases.profileInfo));
  r.use(searchRoutes(useCases.search));
  r.use(publishRoutes(useCases.published, useCases.recentPosts));
  r.use(metricsRoutes({ daily: useCases.dailyMetrics, posts: useCases.postMetrics }));
  r.use(answerInjectedFailures);
  return r;
}

/** Injected failures are the expected outcome of a test: answer them without error logs. */
function answerInjectedFailures(err: unknown, req: Request, res: Response, next: NextFunction): void {
  if (!(err instanceof InjectedFailure)) return next(err);
  log.debug('injected failure', { code: err.code, status: err.status, path: req.path });
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  res.status(err.status).json(errorBody(err, req.requestId));
}
