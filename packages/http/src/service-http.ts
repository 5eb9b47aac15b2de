import type { Express, Router } from 'express';
import type { TokenVerifier } from '@social/internal-auth';
import { createServiceApp } from './create-app';
import type { ReadinessCheck } from './health';
import { listen } from './http-server';

export interface ServiceHttpOptions {
  host: string;
  port: number;
  api?: { router: Router; verifier: TokenVerifier };
  publicRoutes?: Router;
  readiness?: ReadinessCheck[];
  jsonLimit?: string;
}

export interface ServiceHttp {
  port: number;
  /** Readiness turns 503 first (load balancers stop sending), then in-flight requests finish. */
  close(graceMs: number): Promise<void>;
}

/** The HTTP side of a service: its app on its port, with draining wired into /readyz. */
export function startServiceHttp(opts: ServiceHttpOptions): Promise<ServiceHttp> {
  return serveDraining((isDraining) => createServiceApp({ ...opts, isDraining }), opts.port, opts.host);
}

/**
 * Listens with an app built around the process's draining flag (for healthRoutes' isDraining),
 * which close() raises before the server stops: for services (startServiceHttp) and for the
 * gateway, whose app is its own but whose shutdown is the same.
 */
export async function serveDraining(makeApp: (isDraining: () => boolean) => Express, port: number, host: string): Promise<ServiceHttp> {
  let draining = false;
  const server = await listen(
    makeApp(() => draining),
    port,
    host,
  );
  return {
    port: server.port,
    close: async (graceMs) => {
      draining = true;
      await server.close(graceMs);
    },
  };
}
