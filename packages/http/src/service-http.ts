import type { Router } from 'express';
import type { TokenVerifier } from '@social/internal-auth';
import { createServiceApp, type ReadinessCheck } from './create-app';
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
export async function startServiceHttp(opts: ServiceHttpOptions): Promise<ServiceHttp> {
  let draining = false;
  const app = createServiceApp({ ...opts, isDraining: () => draining });
  const server = await listen(app, opts.port, opts.host);
  return {
    port: server.port,
    close: async (graceMs) => {
      draining = true;
      await server.close(graceMs);
    },
  };
}
