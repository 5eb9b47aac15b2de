import express, { type Express, type NextFunction, type Request, type Response, type Router } from 'express';
import { AppError, ErrorCodes, errorBody, toAppError } from '@social/errors';
import { createLogger, errorFields, setContext } from '@social/logger';
import { bearerToken, GATEWAY_ISSUER, type TokenVerifier } from '@social/internal-auth';
import { requestContext } from './request-context';
import { accessLog } from './access-log';
import { healthRoutes, type HealthRoutesOptions } from './health';
import { httpMetrics } from './metrics';
import { checkHeaderCount, checkJsonValues, checkRequestTarget } from './input-guards';

const log = createLogger('http');

export interface ServiceAppOptions extends HealthRoutesOptions {
  /**
   * Routers mounted under /v2 behind internal auth: only tokens the gateway signed for this
   * service's audience open them. Workers and the sandbox have no API.
   */
  api?: { router: Router; verifier: TokenVerifier };
  /** Routers mounted at the root without internal auth (e.g. the storage host). */
  publicRoutes?: Router;
  jsonLimit?: string;
}

/** The express app every service shares: request ids, health, internal auth, JSON, errors. */
export function createServiceApp(opts: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext);
  app.use(accessLog);
  app.use(httpMetrics());

  // Scraped by Prometheus inside the cluster; the gateway never routes /metrics to a service.
  app.use(healthRoutes(opts));

  app.use(checkHeaderCount, checkRequestTarget);
  if (opts.publicRoutes) app.use(opts.publicRoutes);

  if (opts.api) app.use('/v2', internalAuth(opts.api.verifier), jsonBody(opts.jsonLimit ?? '1mb'), checkJsonValues, opts.api.router);

  app.use((req, _res, next) => {
    next(new AppError(ErrorCodes.NOT_FOUND, 404, `No route for ${req.method} ${req.path}.`));
  });
  app.use(errorHandler);
  return app;
}

/** Only the gateway's tokens open a service's HTTP API; another service's key is refused here. */
export function internalAuth(verifier: TokenVerifier) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const token = bearerToken(req.headers.authorization);
    if (!token) return next(new AppError(ErrorCodes.UNAUTHENTICATED, 401, 'Missing internal token.'));
    verifier.verify(token, [GATEWAY_ISSUER]).then((claims) => {
      req.auth = { workspaceId: claims.workspaceId, ...(claims.plan ? { plan: claims.plan } : {}) };
      setContext({ workspaceId: claims.workspaceId });
      next();
    }, next);
  };
}

/**
 * JSON bodies only: a body with another content type is a 415, a malformed one a 400, an oversized
 * one a 413, each in the documented error shape.
 */
export function jsonBody(limit: string) {
  const parse = express.json({ limit, strict: false });
  return (req: Request, res: Response, next: NextFunction) => {
    if (hasBody(req) && !req.is('application/json')) {
      return next(new AppError(ErrorCodes.UNSUPPORTED_MEDIA_TYPE, 415, 'Send the request body as application/json.'));
    }
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const e = err as { type?: string; status?: number; message?: string };
      switch (e.type) {
        case 'entity.too.large':
          return next(new AppError(ErrorCodes.PAYLOAD_TOO_LARGE, 413, `The request body is larger than ${limit}.`));
        case 'entity.parse.failed':
          return next(
            new AppError(ErrorCodes.VALIDATION_FAILED, 400, 'The request body is not valid JSON.', {
              details: [{ path: '', message: e.message ?? 'invalid JSON' }],
            }),
          );
        case 'encoding.unsupported':
          return next(
            new AppError(ErrorCodes.UNSUPPORTED_MEDIA_TYPE, 415, 'Unsupported Content-Encoding: send identity, gzip or deflate.'),
          );
        case 'charset.unsupported':
          return next(new AppError(ErrorCodes.UNSUPPORTED_MEDIA_TYPE, 415, 'Unsupported charset: send the body as UTF-8.'));
        default:
          // Any other client fault body-parser finds (a body that does not inflate, an aborted
          // request, a wrong Content-Length) keeps its 4xx (toAppError); only our own bugs are 5xx.
          return next(err);
      }
    });
  };
}

export function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

export function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  const appErr = toAppError(err);
  if (appErr.status >= 500) {
    log.error('request failed', { method: req.method, path: req.path, status: appErr.status, ...errorFields(err) });
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [k, v] of Object.entries(appErr.headers)) res.setHeader(k, v);
  res.status(appErr.status).json(errorBody(appErr, req.requestId));
}

/** Wraps an async handler so a rejected promise reaches the error handler. */
export function asyncHandler(fn: (req: Request, res: Response, next: NextFunction) => Promise<unknown>) {
  return (req: Request, res: Response, next: NextFunction) => {
    fn(req, res, next).catch(next);
  };
}
