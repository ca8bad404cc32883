import { Type, type TProperties } from 'typebox';

/**
 * The request schemas shared by every version, built with TypeBox so that a handler's `req.query` and
 * `req.body` have the types the schemas guarantee. Where the original accepted several JSON types the
 * schema keeps ajv's `type: [...]` form (its errors name the parameter the same way as before).
 */
export const metaSchema = Type.Unsafe<Record<string, unknown> | string | null>({ type: ['object', 'string', 'null'] });
export const nullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });
export const idList = Type.Unsafe<Array<string | number>>({ type: 'array', items: { type: ['string', 'integer'] } });
export const fieldsQuery = Type.String();

/** Parameters a version has only under a condition: absent from its schema otherwise, and never read there. */
export const onlyIf = <P extends TProperties>(present: boolean, properties: P): P => (present ? properties : ({} as P));

const documentFields = {
  text: Type.Optional(Type.String()),
  meta: Type.Optional(metaSchema),
};

/** A document body; versions without published_at ignore it, as they ignore any unknown parameter. */
export const documentBody = (withPublishedAt: boolean) =>
  Type.Object({ ...documentFields, ...onlyIf(withPublishedAt, { published_at: Type.Optional(nullableString) }) });
