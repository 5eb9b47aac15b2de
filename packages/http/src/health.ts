import { Router } from 'express';
import { metricsEndpoint } from './metrics';

export interface ReadinessCheck {
  name: string;
  check: () => boolean | Promise<boolean>;
}

export interface HealthRoutesOptions {
  readiness?: ReadinessCheck[];
  /** While draining, /readyz answers 503 so load balancers stop sending work. */
  isDraining?: () => boolean;
}

/**
 * The operational endpoints of every HTTP process (each service, and the gateway): GET /metrics
 * for Prometheus, /healthz for liveness (the process answers), /readyz for readiness (every
 * dependency check passes and the process is not draining; 503 otherwise, with each check's
 * result). The deploy probes and the Prometheus annotations rely on these paths and answers.
 * None of them is meant to leave the cluster: the gateway's Ingress forwards only /v2 and /storage.
 */
export function healthRoutes(opts: HealthRoutesOptions = {}): Router {
  const router = Router();
  router.get('/metrics', metricsEndpoint);
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const results: Record<string, boolean> = {};
    for (const c of opts.readiness ?? []) {
      // A check that throws (synchronously or not) means "not ready", never a failed probe request.
      try {
        results[c.name] = await c.check();
      } catch {
        results[c.name] = false;
      }
    }
    const ready = !opts.isDraining?.() && Object.values(results).every(Boolean);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: results });
  });
  return router;
}
