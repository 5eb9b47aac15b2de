import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Express } from 'express';
import { AppError, ErrorCodes, errorBody } from '@social/errors';
import { createLogger } from '@social/logger';

const log = createLogger('http');

export interface RunningHttpServer {
  server: http.Server;
  port: number;
  /** Stops accepting connections, lets in-flight requests finish within graceMs, then cuts the rest. */
  close(graceMs: number): Promise<void>;
}

export async function listen(app: Express, port: number, host: string): Promise<RunningHttpServer> {
  const server = http.createServer(app);
  // Longer than typical proxy/agent idle timeouts so a keep-alive socket is never closed under a request.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  answerProtocolErrors(server);
  continueOnRead(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    server,
    port: actual,
    close: (graceMs) => closeGracefully(server, graceMs),
  };
}

async function closeGracefully(server: http.Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Idle keep-alive sockets would hold close() open; busy ones finish their request first.
  server.closeIdleConnections();
  const timer = setTimeout(() => {
    log.warn('grace period over, closing remaining connections', { graceMs });
    server.closeAllConnections();
  }, graceMs);
  timer.unref();
  await closed;
  clearTimeout(timer);
}

/**
 * `Expect: 100-continue`: Node answers "100 Continue" before the application has seen the request,
 * so the client sends its body even to a handler that answers from the headers alone (a 413 by
 * Content-Length, the media storage host's redirect to a presigned address). Here the "go on" is
 * sent only when the handler starts reading the body; one that never reads it is never sent it.
 */
function continueOnRead(server: http.Server): void {
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    req.once('resume', () => {
      if (!res.headersSent) res.writeContinue();
    });
    server.emit('request', req, res);
  });
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, ErrorCodes.HEADERS_TOO_LARGE, 'The request headers are too large.'],
  HPE_REQUEST_TIMEOUT: [408, ErrorCodes.BAD_REQUEST, 'The request took too long to arrive.'],
};

/**
 * Errors Node's HTTP server answers before express sees the request (headers too large, a
 * malformed request, an `Expect` other than 100-continue) get our JSON error body too, not an
 * empty one. Their request id is made here, since no request context exists yet.
 */
function answerProtocolErrors(server: http.Server): void {
  server.on('checkExpectation', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const requestId = randomUUID();
    const body = JSON.stringify(
      errorBody(
        new AppError(
          ErrorCodes.EXPECTATION_FAILED,
          417,
          `Expect: ${String(req.headers.expect).slice(0, 64)} is not supported; only 100-continue is.`,
        ),
        requestId,
      ),
    );
    res.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-request-id': requestId,
      connection: 'close',
    });
    res.end(body);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, code, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, ErrorCodes.BAD_REQUEST, 'The request is not valid HTTP.'];
    const requestId = randomUUID();
    const body = JSON.stringify(errorBody(new AppError(code, status, message), requestId));
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
