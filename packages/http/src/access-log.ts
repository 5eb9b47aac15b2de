import type { NextFunction, Request, Response } from 'express';
import { createLogger } from '@social/logger';

const log = createLogger('http:access');

/** One line per request with its request id, so one id finds the request in every service's log. */
export function accessLog(req: Request, res: Response, next: NextFunction): void {
  if (req.path === '/healthz' || req.path === '/readyz') return next();
  const start = process.hrtime.bigint();
  res.on('finish', () => {
    log.info('request', {
      method: req.method,
      path: req.originalUrl.split('?')[0],
      status: res.statusCode,
      durationMs: Math.round(Number(process.hrtime.bigint() - start) / 1e4) / 100,
      ...(res.locals['logFields'] as Record<string, unknown> | undefined),
    });
  });
  next();
}
