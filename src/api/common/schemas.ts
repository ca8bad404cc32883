import type { Schema } from '../../http/route';

export const metaSchema: Schema = { type: ['object', 'string', 'null'] };

export const documentBody = (withPublishedAt: boolean): Schema => ({
  type: 'object',
  properties: {
    text: { type: 'string' },
    meta: metaSchema,
    ...(withPublishedAt ? { published_at: { type: ['string', 'null'] } } : {}),
  },
});

export const fieldsQuery: Schema = { type: 'string' };

export const objectQuery = (properties: Record<string, Schema>, required: string[] = []): Schema =>
  ({ type: 'object', properties, required });
