import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { badRequest, type ApiError } from '../errors';
import type { Schema } from './route';

/**
 * Query strings arrive as strings: coerce them to the schema's types (and single values to
 * arrays where an array is expected), fill defaults, and ignore parameters no schema names.
 */
const queryAjv = new Ajv({ coerceTypes: 'array', useDefaults: true, allErrors: false, strict: false });
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: false });
addFormats(queryAjv);
addFormats(bodyAjv);

export type Validator = (value: unknown) => ApiError | undefined;

function nameOf(error: ErrorObject): string {
  if (error.keyword === 'required') return String(error.params.missingProperty);
  const path = error.instancePath.split('/').filter(Boolean);
  return path.length ? path.join('.') : 'body';
}

/** Messages in the original service's style: `<name> is missing` / `<name> is invalid`. */
export function messageOf(error: ErrorObject): string {
  const name = nameOf(error);
  return error.keyword === 'required' ? `${name} is missing` : `${name} is invalid`;
}

/**
 * A validator compiled at its first use: compiling every route's schemas of every version took 0.4 s of each
 * start (restart profile), a few milliseconds each when spread over the routes' first requests.
 */
function compile(ajv: Ajv, schema: Schema): Validator {
  let validate: ValidateFunction | undefined;
  return (value) => {
    validate ??= ajv.compile(schema);
    return validate(value) ? undefined : badRequest(messageOf(validate.errors![0]));
  };
}

export const compileQuery = (schema: Schema): Validator => compile(queryAjv, schema);
export const compileBody = (schema: Schema): Validator => compile(bodyAjv, schema);
