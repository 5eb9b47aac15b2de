import { type NextFunction, type Request, type Response, Router } from 'express';
import { errorBody } from '@social/errors';
import { jsonBody } from '@social/http';
import { InjectedFailure } from '../domain/sandbox.errors';
import type { SandboxContext } from '../domain/sandbox.context';
import { log } from '../logger';
import { accountsRoutes } from './accounts.routes';
import { adminRoutes } from './admin.routes';
import { metricsRoutes } from './metrics.routes';
import { picturesRoutes } from './pictures.routes';
import { publishRoutes } from './publish.routes';
import { searchRoutes } from './search.routes';

/** Every route of the sandbox; served at the root (it is not behind the gateway). */
export function sandboxRouter(ctx: SandboxContext, opts: { admin: boolean }): Router {
  const r = Router();
  r.use('/sandbox', jsonBody('5mb'));
  r.use(picturesRoutes(ctx));
  if (opts.admin) r.use(adminRoutes(ctx));
  r.use(accountsRoutes(ctx));
  r.use(searchRoutes(ctx));
  r.use(publishRoutes(ctx));
  r.use(metricsRoutes(ctx));
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
