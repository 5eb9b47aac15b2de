import Ajv, { type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ErrorDetail, validationError } from '@social/errors';

export const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false });
addFormats(ajv);

/** Turns ajv errors into `details` entries with JSON paths a client can act on. */
export function toDetails(errors: ErrorObject[] | null | undefined, root = ''): ErrorDetail[] {
  return (errors ?? []).map((e) => {
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

/** Compiles once; the returned function throws a 400 with every problem or returns typed data. */
export function validator<T>(schema: JSONSchemaType<T> | object, root = ''): (data: unknown) => T {
  const validate: ValidateFunction = ajv.compile(schema);
  return (data: unknown) => {
    if (!validate(data)) throw validationError(toDetails(validate.errors, root));
    return data as T;
  };
}
