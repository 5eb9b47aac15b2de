import Ajv, { type ErrorObject, type JSONSchemaType, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ErrorDetail, MAX_ERROR_DETAILS, validationError } from '@social/errors';

// strictNumbers: NaN and Infinity (JSON's `1e400`) are not numbers for any schema.
const options: Options = { strict: false, strictNumbers: true, useDefaults: false };

/**
 * Two compilations of every schema. `first` stops at the first problem, and ajv checks an array's
 * maxItems (a string's maxLength) before its items (its pattern or format), so an oversized value
 * costs one check, not one per item. `every` lists all problems, and runs only on bodies small
 * enough that listing them is cheap (see MAX_NODES_FOR_ALL_ERRORS).
 */
const first = new Ajv({ ...options, allErrors: false });
const every = new Ajv({ ...options, allErrors: true });
addFormats(first);
addFormats(every);

/** The instance that lists every problem, for callers that compile schemas of their own. */
export const ajv = every;

/** Values (array items, object fields) a body may have for all its problems to be listed. */
export const MAX_NODES_FOR_ALL_ERRORS = 2000;

/** Turns ajv errors into at most MAX_ERROR_DETAILS `details` entries with JSON paths a client can act on. */
export function toDetails(errors: ErrorObject[] | null | undefined, root = ''): ErrorDetail[] {
  return (errors ?? []).slice(0, MAX_ERROR_DETAILS).map((e) => {
    let path = root + e.instancePath;
    if (e.keyword === 'required') path += `/${(e.params as { missingProperty: string }).missingProperty}`;
    if (e.keyword === 'additionalProperties') {
      path += `/${(e.params as { additionalProperty: string }).additionalProperty}`;
      return { path, message: 'is not a known field' };
    }
    if (e.keyword === 'enum') {
      return { path, message: `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` };
    }
    return { path, message: e.message ?? 'is invalid' };
  });
}

/** True when the value has at most `max` nested values; stops counting there. */
function hasAtMostNodes(value: unknown, max: number): boolean {
  let seen = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (++seen > max) return false;
    if (v !== null && typeof v === 'object') {
      for (const x of Array.isArray(v) ? v : Object.values(v)) stack.push(x);
      if (stack.length + seen > max) return false;
    }
  }
  return true;
}

/**
 * Compiles once; the returned function returns typed data, or throws a 400 with the problems
 * found: every one (up to MAX_ERROR_DETAILS) for an ordinary body, the first one for a huge body,
 * so no body makes validation (or its answer) grow with its size.
 */
export function validator<T>(schema: JSONSchemaType<T> | object, root = ''): (data: unknown) => T {
  const quick: ValidateFunction = first.compile(schema);
  const thorough: ValidateFunction = every.compile(schema);
  return (data: unknown) => {
    if (quick(data)) return data as T;
    if (hasAtMostNodes(data, MAX_NODES_FOR_ALL_ERRORS) && !thorough(data)) {
      throw validationError(toDetails(thorough.errors, root));
    }
    throw validationError(toDetails(quick.errors, root));
  };
}
