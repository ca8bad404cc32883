import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { KindredError, invalidParameter, missingParameter } from '../errors';
import type { Schema } from './route';

/**
 * Query strings arrive as strings: coerce them to the schema's types (and single values to arrays where an
 * array is expected) and fill defaults. Parameters no schema names are dropped, so a handler sees only what its
 * version has (a parameter another version has is as unknown as any other).
 */
const queryAjv = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: 'all', allErrors: false, strict: false });
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: 'all', allErrors: false, strict: false });
/** Path parameters are strings already; their schemas say which ids a route takes. */
const paramsAjv = new Ajv({ allErrors: false, strict: false });
addFormats(queryAjv);
addFormats(bodyAjv);

export type Validator = (value: unknown) => KindredError | undefined;

function nameOf(error: ErrorObject): string {
  if (error.keyword === 'required') return String(error.params.missingProperty);
  const path = error.instancePath.split('/').filter(Boolean);
  return path.length ? path.join('.') : 'body';
}

/** The original service's words: `<name> is missing` / `<name> is invalid`. */
export function errorOf(error: ErrorObject): KindredError {
  const name = nameOf(error);
  if (error.keyword === 'required') return missingParameter(name);
  // `{not: {}}` (TypeBox's Never) marks a parameter the version does not have (src/api/common/schemas.ts `unsupported`).
  if (error.keyword === 'not') return new KindredError('unsupported_parameter', `${name} is not available in this version`);
  return invalidParameter(name);
}

/**
 * A validator compiled at its first use: compiling every route's schemas of every version took 0.4 s of each
 * start (restart profile), a few milliseconds each when spread over the routes' first requests.
 */
function compile(ajv: Ajv, schema: Schema, toError: (error: ErrorObject) => KindredError = errorOf): Validator {
  let validate: ValidateFunction | undefined;
  return (value) => {
    validate ??= ajv.compile(schema);
    return validate(value) ? undefined : toError(validate.errors![0]);
  };
}

export const compileQuery = (schema: Schema): Validator => compile(queryAjv, schema);
export const compileBody = (schema: Schema): Validator => compile(bodyAjv, schema);
/** A path parameter that breaks its pattern is an id the route cannot name: `<name> is invalid`, `invalid_id`. */
export const compileParams = (schema: Schema): Validator =>
  compile(paramsAjv, schema, (error) => new KindredError('invalid_id', `${nameOf(error)} is invalid`));
