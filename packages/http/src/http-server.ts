import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
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
