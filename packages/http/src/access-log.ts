import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createLogger, type Logger } from '@social/logger';

export interface AccessLogOptions {
  /**
   * A request still without an answer after this long is logged at warn while it runs, so a stuck
   * request shows which process holds it, even at LOG_LEVEL=warn and before any timeout ends it.
   */
  slowRequestMs?: number;
  log?: Pick<Logger, 'info' | 'warn'>;
}

/**
 * One line per request with its request id, so one id finds the request in every service's log;
 * a warning for a request that runs longer than `slowRequestMs` (10 s) and for one whose caller
 * left before it was answered.
 */
export function createAccessLog({ slowRequestMs = 10_000, log = createLogger('http:access') }: AccessLogOptions = {}): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.path === '/healthz' || req.path === '/readyz') return next();
    const start = process.hrtime.bigint();
    const fields = () => ({
      // Explicit: timers and socket events do not always run in the request's logging context.
      requestId: req.requestId,
      method: req.method,
      path: req.originalUrl.split('?')[0],
      durationMs: Math.round(Number(process.hrtime.bigint() - start) / 1e4) / 100,
    });
    const slow = setTimeout(() => log.warn('request still running', fields()), slowRequestMs);
    slow.unref();
    res.on('finish', () => {
      clearTimeout(slow);
      log.info('request', { ...fields(), status: res.statusCode, ...(res.locals['logFields'] as Record<string, unknown> | undefined) });
    });
    res.on('close', () => {
      clearTimeout(slow);
      if (!res.writableFinished) log.warn('request closed before its answer was sent', fields());
    });
    next();
  };
}

export const accessLog: RequestHandler = createAccessLog();
