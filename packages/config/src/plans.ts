import Ajv from 'ajv';
import { ConfigError } from './load-config';

/** What a workspace's plan allows. Plans are configuration (PLANS), not code. */
export interface PlanLimits {
  /** Competitors a workspace may track (POST /competitor → 403 beyond it). */
  competitors: number;
  /** Requests per rate-limit window; the gateway's RATE_LIMIT_REQUESTS when absent. */
  requestsPerWindow?: number;
}

export const DEFAULT_PLANS: Record<string, PlanLimits> = {
  free: { competitors: 5 },
  pro: { competitors: 25 },
  agency: { competitors: 100 },
};

export const DEFAULT_PLAN = 'free';

const validate = new Ajv().compile({
  type: 'object',
  minProperties: 1,
  additionalProperties: {
    type: 'object',
    required: ['competitors'],
    properties: {
      competitors: { type: 'integer', minimum: 0 },
      requestsPerWindow: { type: 'integer', minimum: 1 },
    },
    additionalProperties: false,
  },
});

/** Reads PLANS (JSON: {"free": {"competitors": 5}, ...}); fails start-up naming PLANS when malformed. */
export function parsePlans(raw: string | undefined): Record<string, PlanLimits> {
  if (raw === undefined || raw === '') return DEFAULT_PLANS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('PLANS', 'must be JSON like {"free":{"competitors":5}}');
  }
  if (!validate(parsed)) {
    throw new ConfigError('PLANS', `is not a valid plan table: ${validate.errors?.[0]?.instancePath} ${validate.errors?.[0]?.message}`);
  }
  return parsed as Record<string, PlanLimits>;
}
