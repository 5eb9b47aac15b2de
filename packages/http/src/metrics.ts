import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { httpRequestDuration, metricsText } from '@social/metrics';

const UNMATCHED = 'unmatched';
// Probes and scrapes would swamp the latency of real traffic; they are not what SLOs measure.
const NOT_MEASURED = new Set(['/metrics', '/healthz', '/readyz']);

export interface HttpMetricsOptions {
  /** Route label for requests no express route matched (the gateway's proxied paths). */
  routeOf?: (req: Request) => string | undefined;
}

/**
 * Records http_request_duration_seconds by method, route pattern and status (`aborted` when the
 * client left first). The pattern is taken
 * when express matches a route (req.route is set then, with the router's mount path in baseUrl),
 * because by the time the response finishes an error may have unwound baseUrl.
 */
export function httpMetrics(opts: HttpMetricsOptions = {}): RequestHandler {
  const histogram = httpRequestDuration();
  return (req: Request, res: Response, next: NextFunction) => {
    if (NOT_MEASURED.has(req.path)) return next();
    const stop = histogram.startTimer();
    let pattern: string | undefined;
    let route: unknown;
    Object.defineProperty(req, 'route', {
      configurable: true,
      enumerable: true,
      get: () => route,
      set: (value: { path?: unknown } | undefined) => {
        route = value;
        if (typeof value?.path === 'string') pattern = req.baseUrl + value.path;
      },
    });
    // 'close' also comes when the client went away before the response was complete.
    res.once('close', () => {
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      stop({ method: req.method, route: pattern ?? opts.routeOf?.(req) ?? UNMATCHED, status });
    });
    next();
  };
}

/** GET /metrics: the process's series in the Prometheus text format. Mounted outside internal auth. */
export function metricsEndpoint(_req: Request, res: Response, next: NextFunction): void {
  metricsText()
    .then(({ contentType, body }) => {
      // res.send would rewrite the content type with a charset Prometheus does not expect.
      res.setHeader('Content-Type', contentType);
      res.end(body);
    })
    .catch(next);
}
