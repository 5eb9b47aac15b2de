import { randomUUID } from 'node:crypto';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { validationError, type ErrorDetail } from '@social/errors';

/** What travels on the broker: correlation metadata around a typed payload. */
export interface EventEnvelope<T = unknown> {
  id: string;
  type: string;
  occurredAt: string;
  correlationId: string;
  workspaceId: string | null;
  payload: T;
}

export interface EventDefinition<T = unknown> {
  readonly type: string;
  /** Where publish() sends it unless the call names another exchange. */
  readonly exchange?: string;
  readonly payloadSchema: object;
  /** Checks a whole envelope (not only the payload) against the compiled schema. */
  validate(envelope: unknown): envelope is EventEnvelope<T>;
  /** The problems found by the last failed validate() call, as error details. */
  errors(): ErrorDetail[];
}

export interface DefineEventOptions {
  type: string;
  payloadSchema: object;
  exchange?: string;
}

/** The payload type carried by an event definition. */
export type PayloadOf<D> = D extends EventDefinition<infer T> ? T : never;
/** The envelope a consumer of these definitions receives (a union when there are several). */
export type EnvelopeOf<D> = D extends EventDefinition<infer T> ? EventEnvelope<T> : never;

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

/**
 * Declares an event type. The envelope schema is compiled here, once, and used both on publish and
 * on consume: a consumer cannot trust a producer that runs another version of the code.
 */
export function defineEvent<T>(options: DefineEventOptions): EventDefinition<T> {
  const schema = {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'type', 'occurredAt', 'correlationId', 'workspaceId', 'payload'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      type: { const: options.type },
      occurredAt: { type: 'string', format: 'date-time' },
      correlationId: { type: 'string', minLength: 1 },
      workspaceId: { type: ['string', 'null'], minLength: 1 },
      payload: options.payloadSchema,
    },
  };
  const check: ValidateFunction = ajv.compile(schema);
  let lastErrors: ErrorObject[] = [];
  return {
    type: options.type,
    exchange: options.exchange,
    payloadSchema: options.payloadSchema,
    validate(envelope: unknown): envelope is EventEnvelope<T> {
      const ok = check(envelope);
      lastErrors = ok ? [] : [...(check.errors ?? [])];
      return ok;
    },
    errors: () => lastErrors.map(toDetail),
  };
}

/** True when the envelope is of this definition's type; narrows a union of envelopes. */
export function isEvent<T>(def: EventDefinition<T>, envelope: EventEnvelope): envelope is EventEnvelope<T> {
  return envelope.type === def.type;
}

export interface EnvelopeMeta {
  workspaceId: string | null;
  correlationId: string;
  id?: string;
  occurredAt?: Date;
}

/** Builds and validates an envelope; an invalid one is a bug of the producer, so it throws. */
export function createEnvelope<T>(def: EventDefinition<T>, payload: T, meta: EnvelopeMeta): EventEnvelope<T> {
  const envelope: EventEnvelope<T> = {
    id: meta.id ?? randomUUID(),
    type: def.type,
    occurredAt: (meta.occurredAt ?? new Date()).toISOString(),
    correlationId: meta.correlationId,
    workspaceId: meta.workspaceId,
    payload,
  };
  if (!def.validate(envelope)) {
    throw validationError(def.errors(), `Event ${def.type} is not valid.`);
  }
  return envelope;
}

export type ParseResult =
  { ok: true; envelope: EventEnvelope; def: EventDefinition } | { ok: false; reason: string; details: ErrorDetail[] };

/** Reads a message body into an envelope of one of the expected definitions, or says why not. */
export function parseEnvelope(body: Buffer, defs: ReadonlyMap<string, EventDefinition>): ParseResult {
  let data: unknown;
  try {
    data = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, reason: 'body is not JSON', details: [] };
  }
  const type = typeof data === 'object' && data !== null ? (data as { type?: unknown }).type : undefined;
  const def = typeof type === 'string' ? defs.get(type) : undefined;
  if (!def) return { ok: false, reason: `unknown event type ${JSON.stringify(type)}`, details: [] };
  if (!def.validate(data)) return { ok: false, reason: 'envelope does not match its schema', details: def.errors() };
  return { ok: true, envelope: data, def };
}

function toDetail(e: ErrorObject): ErrorDetail {
  let path = e.instancePath;
  if (e.keyword === 'required') path += `/${(e.params as { missingProperty: string }).missingProperty}`;
  if (e.keyword === 'additionalProperties') {
    path += `/${(e.params as { additionalProperty: string }).additionalProperty}`;
  }
  return { path, message: e.message ?? 'is invalid' };
}
