import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { SECRET_HINT, weakSecretReason } from './secrets';

type VarType = 'string' | 'integer' | 'number' | 'boolean';

/** How one environment variable becomes one typed config value. */
export interface VarSpec {
  env: string;
  type: VarType;
  default?: string | number | boolean;
  /** Without a default, a required variable that is unset fails start-up. */
  required?: boolean;
  enum?: readonly (string | number)[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
  format?: 'uri' | 'hostname';
  description?: string;
  /**
   * A secret: never has a default, and start-up refuses a published default, a placeholder or a
   * short value, naming the variable. There is no switch that turns this off, not even in tests.
   */
  secret?: boolean;
}

type ValueOf<S extends VarSpec> = S['type'] extends 'string' ? string : S['type'] extends 'boolean' ? boolean : number;

export type ConfigOf<T extends Record<string, VarSpec>> = {
  [K in keyof T]: T[K]['required'] extends true
    ? ValueOf<T[K]>
    : T[K]['default'] extends string | number | boolean
      ? ValueOf<T[K]>
      : ValueOf<T[K]> | undefined;
};

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false });
addFormats(ajv);

/** Collects the raw values of the variables a spec names (strings, as the environment holds them). */
export function readEnv(spec: Record<string, VarSpec>, env: NodeJS.ProcessEnv = process.env) {
  const raw: Record<string, string> = {};
  for (const s of Object.values(spec)) {
    const v = env[s.env];
    if (v !== undefined && v !== '') raw[s.env] = v;
  }
  return raw;
}

/**
 * Turns raw env values into a typed config: applies defaults, validates with ajv and fails at
 * start with the name of the bad variable, so a misconfigured deployment never half-starts.
 */
export function toConfig<T extends Record<string, VarSpec>>(spec: T, raw: Record<string, string>): ConfigOf<T> {
  const properties: Record<string, object> = {};
  const required: string[] = [];
  for (const s of Object.values(spec)) {
    const { env, required: req, description: _d, secret: _s, ...schema } = s;
    if (s.secret && s.default !== undefined) throw new Error(`${env}: a secret cannot have a default`);
    properties[env] = schema;
    if (req && s.default === undefined) required.push(env);
  }
  const schema = { type: 'object', properties, required, additionalProperties: true };
  const data: Record<string, unknown> = { ...raw };
  const validate = ajv.compile(schema);
  if (!validate(data)) {
    const e = validate.errors![0]!;
    const variable =
      e.keyword === 'required' ? String((e.params as { missingProperty: string }).missingProperty) : e.instancePath.replace(/^\//, '');
    const got = raw[variable] === undefined ? 'unset' : `got ${JSON.stringify(raw[variable])}`;
    const isSecret = Object.values(spec).some((s) => s.env === variable && s.secret);
    if (isSecret) throw new ConfigError(variable, `${e.keyword === 'required' ? 'is required' : e.message}: ${SECRET_HINT}`);
    throw new ConfigError(variable, `${e.keyword === 'required' ? 'is required' : e.message} (${got})`);
  }
  for (const s of Object.values(spec)) {
    const value = data[s.env];
    if (!s.secret || typeof value !== 'string') continue;
    const reason = weakSecretReason(value);
    if (reason) throw new ConfigError(s.env, `${reason}; refusing to start with it: ${SECRET_HINT}`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(spec)) out[key] = data[s.env];
  return out as ConfigOf<T>;
}

export function loadConfig<T extends Record<string, VarSpec>>(spec: T, env: NodeJS.ProcessEnv = process.env) {
  return toConfig(spec, readEnv(spec, env));
}
