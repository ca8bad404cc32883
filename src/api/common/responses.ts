import { Type, type TSchema } from 'typebox';
import type { Dialect } from './dialect';

/**
 * Response schemas: what each route answers, in OpenAPI and checked against real answers by
 * test/integration/openapi.test.ts. Objects are closed (`additionalProperties: false`) so a field the schema
 * does not name fails the check.
 */
const closed = { additionalProperties: false };
const timestamp = Type.String();
const json = Type.Record(Type.String(), Type.Unknown());

/** A document in the version's shape: the optional fields are those `fields` can ask for. */
export const documentResponse = (d: Dialect) => Type.Object({
  id: d.idSchema,
  text: Type.Optional(Type.String()),
  meta: Type.Optional(json),
  created_at: timestamp,
  updated_at: timestamp,
  published_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  tags: Type.Optional(Type.Array(Type.String())),
}, closed);
export const documentList = (d: Dialect) => Type.Array(documentResponse(d));

export const userResponse = (d: Dialect) => Type.Object({ id: d.idSchema, created_at: timestamp, updated_at: timestamp }, closed);
export const deletedUserResponse = (d: Dialect) =>
  Type.Object({ id: d.idSchema, created_at: timestamp, updated_at: timestamp, merged_into: Type.Optional(d.idSchema) }, closed);
export const preferenceResponse = (d: Dialect) =>
  Type.Object({ user_id: d.idSchema, document_id: d.idSchema, created_at: timestamp, updated_at: timestamp }, closed);

/** Tags: v6's carry type and meta. */
export const tagResponse = (typed: boolean) => (typed
  ? Type.Object({ id: Type.String(), type: Type.Union([Type.String(), Type.Null()]), meta: json, created_at: timestamp }, closed)
  : Type.Object({ id: Type.String(), created_at: timestamp }, closed));

export const idsResponse = Type.Array(Type.String());

/** One recommendation: its id and similarity (content-based) or score (hybrid), then the fields asked for. */
const recommended = (d: Dialect, score: 'similarity' | 'score') => Type.Object({
  id: d.idSchema,
  [score]: Type.Number(),
  text: Type.Optional(Type.String()),
  meta: Type.Optional(json),
  published_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  tags: Type.Optional(Type.Array(Type.String())),
}, closed);
export const contentRecommendations = (d: Dialect) => Type.Array(recommended(d, 'similarity'));

const recognition = (d: Dialect) => Type.Object({ id: d.idSchema, recognised: Type.Boolean() }, closed);
/** Ids the hybrid recommender did or did not recognise: one id, or a list. */
const recognisedIds = (d: Dialect) => Type.Object({
  user_id: Type.Optional(d.idSchema),
  document_id: Type.Optional(Type.Union([d.idSchema, Type.Array(d.idSchema)])),
}, closed);

/** The hybrid recommender's answer: v6/v5 list document_ids/user_ids; v3 (and similar-to-ids) recognised/unrecognised. */
export const hybridRecommendations = (d: Dialect) => Type.Union([
  Type.Object({ results: Type.Array(recommended(d, 'score')), document_ids: Type.Array(recognition(d)), user_ids: Type.Array(recognition(d)) }, closed),
  Type.Object({ results: Type.Array(recommended(d, 'score')), recognised: recognisedIds(d), unrecognised: recognisedIds(d) }, closed),
]);
/** A route either recommender may answer. */
export const recommendations = (d: Dialect, hybrid: boolean): TSchema =>
  (hybrid ? Type.Union([contentRecommendations(d), hybridRecommendations(d)]) : contentRecommendations(d));

export const tagSuggestions = Type.Object({ results: Type.Array(Type.Object({ id: Type.String(), score: Type.Number() }, closed)) }, closed);

export const keywordSearch = (d: Dialect) => Type.Object({
  hits: Type.Object({
    total: Type.Object({ value: Type.Integer(), relation: Type.Enum(['eq', 'gte']) }, closed),
    max_score: Type.Union([Type.Number(), Type.Null()]),
    hits: Type.Array(Type.Object({
      ...documentResponse(d).properties,
      _score: Type.Union([Type.Number(), Type.Null()]),
      sort: Type.Optional(Type.Array(Type.Unknown())),
      highlight: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
    }, closed)),
  }, closed),
  aggregations: json,
}, closed);

export const clusterModel = Type.Object({
  id: Type.Integer(), number_clusters: Type.Integer(), created_at: timestamp, status: Type.Enum(['training', 'trained', 'failed']),
}, closed);
export const clusterNumbers = Type.Array(Type.Integer());
export const clusterWords = Type.Array(Type.Object({ word: Type.String(), importance: Type.Number() }, closed));
export const clusterDocuments = (d: Dialect) => Type.Array(d.idSchema);
/** An SVG document. */
export const svg = Type.String();

export const article = Type.Object({
  title: Type.String(), author: Type.String(), published: Type.Union([Type.String(), Type.Null()]), url: Type.String(), image: Type.String(),
  videos: Type.Array(Type.String()), keywords: Type.Array(Type.String()), summary: Type.String(), body: Type.String(),
}, closed);

/** v1's shapes: a document with meta JSON-encoded, distances, and the empty object of delete-all. */
export const v1Document = Type.Object({ text: Type.String(), created_at: Type.String(), meta: Type.String(), document_id: Type.String() }, closed);
export const v1Distances = Type.Array(Type.Object({ distance: Type.Number(), document_id: Type.String() }, closed));
export const emptyObject = Type.Object({}, closed);

/** The spec's error body (v2–v6). */
export const errorResponse = Type.Object({ message: Type.String() }, closed);
