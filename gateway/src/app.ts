import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AppError, ErrorCodes } from '@social/errors';
import {
  accessLog,
  checkHeaderCount,
  checkRequestTarget,
  errorHandler,
  hasBody,
  healthRoutes,
  httpMetrics,
  requestContext,
  type ReadinessCheck,
} from '@social/http';
import type { TokenSigner } from '@social/internal-auth';
import { setContext } from '@social/logger';
import { loadOpenApi } from '@social/openapi';
import type { Authenticator, Principal } from './auth/authenticator';
import { rateLimitHeaders, type RateLimiter } from './rate-limit/rate-limiter';
import { bodyLimitFor, routeLabelFor, upstreamFor, type UpstreamName } from './proxy/routes';
import { idempotency } from './idempotency/idempotency';
import { docsRouter } from './docs/docs-page';
import type { IdempotencyStore } from './idempotency/idempotency-store';

export interface GatewayAppDeps {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  /** Requests per window for a plan (plans may override the default). */
  limitFor: (plan: string) => number;
  proxies: Record<UpstreamName, RequestHandler>;
  /** The gateway's private key: services accept only tokens it signed. */
  signer: TokenSigner;
  bodyLimitBytes: number;
  /** Keeps the responses of requests sent with an Idempotency-Key; undefined turns the check off. */
  idempotency?: IdempotencyStore;
  readiness: ReadinessCheck[];
  isDraining: () => boolean;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      principal?: Principal;
      upstream?: UpstreamName;
    }
  }
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

export function createGatewayApp(deps: GatewayAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext);
  app.use(accessLog);
  // Proxied paths match no express route here; label them by the public route family instead.
  app.use(httpMetrics({ routeOf: (req) => routeLabelFor(req.originalUrl.split('?')[0]!) }));
  // Refused here, whatever the route: more than 100 header lines, undecodable or NUL escapes.
  app.use(checkHeaderCount, checkRequestTarget);

  // /metrics for Prometheus, /healthz and /readyz for the probes: the same handlers as every
  // service's (packages/http). They stay inside the cluster; the Ingress (deploy/) forwards only
  // /v2 and /storage.
  app.use(healthRoutes({ readiness: deps.readiness, isDraining: deps.isDraining }));

  // The storage host: signed upload/download addresses, no API key (spec 4.5); media checks signatures.
  app.use('/storage', (req: Request, res: Response, next: NextFunction) => {
    delete req.headers['x-api-id'];
    delete req.headers['x-api-key'];
    delete req.headers.authorization;
    req.headers['x-request-id'] = req.requestId;
    req.url = req.originalUrl;
    deps.proxies.media(req, res, next);
  });

  // The contract, public like any API reference (no key needed to read how to use the key).
  const openApi = loadOpenApi();
  app.get('/v2/openapi.json', (_req, res) => {
    res.json(openApi);
  });
  app.use(docsRouter('/v2'));

  app.use('/v2', authenticate(deps.authenticator), rateLimit(deps.rateLimiter, deps.limitFor), route, checkBody(deps.bodyLimitBytes));
  if (deps.idempotency)
    app.use(
      '/v2',
      idempotency(deps.idempotency, (path) => bodyLimitFor(path, deps.bodyLimitBytes)),
    );
  app.use('/v2', (req: Request, res: Response, next: NextFunction) => {
    const upstream = req.upstream!;
    const principal = req.principal!;
    // The service trusts only this token; credentials never leave the gateway. The plan comes from
    // the gateway's own database, never from the request.
    delete req.headers['x-api-id'];
    delete req.headers['x-api-key'];
    req.headers['x-request-id'] = req.requestId;
    deps.signer
      .sign({ workspaceId: principal.workspaceId, requestId: req.requestId, plan: principal.plan }, { audience: upstream })
      .then((token) => {
        req.headers.authorization = `Bearer ${token}`;
        // Services mount their API under /v2 too; express stripped the mount path from req.url.
        req.url = req.originalUrl;
        deps.proxies[upstream](req, res, next);
      }, next);
  });

  app.use((req, _res, next) => next(noRoute(req)));
  app.use(errorHandler);
  return app;
}

function noRoute(req: Request) {
  return new AppError(ErrorCodes.NOT_FOUND, 404, `No route for ${req.method} ${req.originalUrl.split('?')[0]}.`);
}

function authenticate(authenticator: Authenticator): RequestHandler {
  return (req, res, next) => {
    authenticator
      .authenticate(header(req, 'x-api-id'), header(req, 'x-api-key'))
      .then((principal) => {
        req.principal = principal;
        setContext({ workspaceId: principal.workspaceId });
        res.locals['logFields'] = { workspaceId: principal.workspaceId };
        next();
      })
      .catch(next);
  };
}

function rateLimit(limiter: RateLimiter, limitFor: (plan: string) => number): RequestHandler {
  return (req, res, next) => {
    limiter
      .hit(req.principal!.workspaceId, limitFor(req.principal!.plan))
      .then((r) => {
        const headers = rateLimitHeaders(r);
        for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
        if (r.allowed) return next();
        next(
          new AppError(
            ErrorCodes.RATE_LIMITED,
            429,
            `Rate limit of ${r.limit} requests per ${r.windowSeconds} s reached; retry after ${r.resetSeconds} s.`,
            { headers },
          ),
        );
      })
      .catch(next);
  };
}

function route(req: Request, res: Response, next: NextFunction) {
  const upstream = upstreamFor(req.originalUrl.split('?')[0]!);
  if (!upstream) return next(noRoute(req));
  req.upstream = upstream;
  res.locals['logFields'] = { ...res.locals['logFields'], upstream };
  next();
}

/** JSON only where JSON is expected, and no body over the route's limit (the services check again). */
function checkBody(ceiling: number): RequestHandler {
  return (req, _res, next) => {
    if (!METHODS_WITH_BODY.has(req.method) || !hasBody(req)) return next();
    const limit = bodyLimitFor(req.originalUrl.split('?')[0]!, ceiling);
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > limit) {
      return next(new AppError(ErrorCodes.PAYLOAD_TOO_LARGE, 413, `The request body is larger than ${limit} bytes.`));
    }
    if (!req.is('application/json')) {
      return next(new AppError(ErrorCodes.UNSUPPORTED_MEDIA_TYPE, 415, 'Send the request body as application/json.'));
    }
    next();
  };
}

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
