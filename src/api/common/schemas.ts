import { Type, type TObject, type TProperties } from 'typebox';

/**
 * The request schemas shared by every version, built with TypeBox so that a handler's `req.query` and
 * `req.body` have the types the schemas guarantee.
 */
export const metaSchema = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.String(), Type.Null()]);
export const nullableString = Type.Union([Type.String(), Type.Null()]);
export const idList = Type.Array(Type.Union([Type.String(), Type.Integer()]));
export const fieldsQuery = Type.String();

/** A parameter this version refuses (400 `unsupported_parameter`) rather than silently ignores. */
export const unsupported = () => Type.Never();

/**
 * An object schema with parameters a version has only under a condition. Its type is the union of both shapes,
 * so a handler reads such a parameter only after finding it (`'name' in req.query`); a version without it
 * never sees it (validation drops parameters its schema does not name).
 */
export function onlyIf<P extends TProperties, B extends TProperties>(present: boolean, properties: P, base: B): TObject<B> | TObject<B & P> {
  return present ? Type.Object({ ...base, ...properties }) : Type.Object(base);
}

const documentFields = {
  text: Type.Optional(Type.String()),
  meta: Type.Optional(metaSchema),
};

/** A document body; versions without published_at ignore it, as they ignore any unknown parameter. */
export const documentBody = (withPublishedAt: boolean) => onlyIf(withPublishedAt, { published_at: Type.Optional(nullableString) }, documentFields);
