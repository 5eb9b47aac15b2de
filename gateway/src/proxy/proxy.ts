import http from 'node:http';
import type { Request, Response, RequestHandler } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { errorBody, serviceUnavailable } from '@social/errors';
import { createLogger, errorFields } from '@social/logger';

const log = createLogger('gateway:proxy');

// Keep-alive to the services: a new TCP connection per request would dominate the gateway's cost.
const agent = new http.Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 10_000 });

/** A proxy to one service; a service that is down or resets the connection is a 503 at once. */
export function proxyTo(name: string, target: string, proxyTimeoutMs: number): RequestHandler {
  return createProxyMiddleware<Request, Response>({
    target,
    agent,
    changeOrigin: false,
    xfwd: true,
    proxyTimeout: proxyTimeoutMs,
    on: {
      // A body the gateway already read (to check an Idempotency-Key) is forwarded as the same bytes.
      proxyReq: (proxyReq, req) => {
        const raw = (req as Request).rawBody;
        if (raw && raw.length > 0) proxyReq.write(raw);
      },
      error: (err, req, res) => {
        const code = (err as NodeJS.ErrnoException).code;
        log.warn('upstream unavailable', { upstream: name, code, ...errorFields(err) });
        if (!(res instanceof http.ServerResponse) || res.headersSent) {
          (res as { destroy?: () => void }).destroy?.();
          return;
        }
        const appErr = serviceUnavailable(`The ${name} service`);
        res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '1' });
        res.end(JSON.stringify(errorBody(appErr, (req as Request).requestId)));
      },
    },
  });
}
