import { Type, type Static, type TSchema } from 'typebox';
import type { KindredError } from '../errors';
import type { TenantApi } from '../services/tenant';
import type { ErrorRenderer } from './error-reply';
import type { Reply } from './reply';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A JSON Schema (built with TypeBox, so handlers get its type); ajv compiles it once at start-up. */
export type Schema = TSchema;

/** `Params`, `Query` and `Body` are what the route's path and schemas guarantee (see `route` below). */
export interface RequestContext<Query = Record<string, unknown>, Body = unknown, Params = Record<string, string>> {
  /** The key's services: the only way a handler reaches the domain. */
  tenant: TenantApi;
  /** Path parameters, checked by the route's params schema. */
  params: Params;
  /** Validated and coerced by the route's query schema. */
  query: Query;
  /** Validated by the route's body schema; undefined when no body was sent. */
  body: Body;
  /** Path as the client sent it (with any version prefix) and its raw query, for Link headers. */
  path: string;
  rawQuery: Record<string, unknown>;
  /** Runs another call through the same version in-process (batch operations). */
  dispatch(call: Call): Promise<Reply>;
  /** True inside a batch operation, where a nested batch is refused. */
  nested: boolean;
}

/** One call into a version's API: from HTTP, from inside a batch, or from the CLI's operations. */
export interface Call {
  method: string;
  /** Path relative to the version's base, e.g. `/documents/abc`. */
  path: string;
  /** Path as the client sent it, with any version prefix (for Link headers); `path` when not given. */
  fullPath?: string;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed body, or undefined when none was sent. */
  body: unknown;
}

export type { Reply } from './reply';

export interface RouteDef {
  method: Method;
  /** Express-like: literal segments and `:name` parameters. */
  path: string;
  /** Path parameters with patterns (a bad one answers 400 `invalid_id`); without it each is a string. */
  params?: Schema;
  query?: Schema;
  body?: Schema;
  /** The answer's body by status: what OpenAPI shows and the tests check real answers against. */
  responses: Readonly<Record<number, Schema>>;
  handle(req: RequestContext): Promise<Reply>;
}

/** Where a version reads the subscription key from. */
export type KeySource = 'header' | 'query';

export interface ApiVersion {
  name: string;
  keySource: KeySource;
  routes: RouteDef[];
  /** How this version shows an error (src/http/error-reply.ts adds the code). */
  renderError: ErrorRenderer;
  /** The error for a path outside this version's API. */
  pathNotFound(): KindredError;
}

/** The `:name` parameters of a path template, each a string. */
export type PathParams<P extends string> =
  P extends `${string}:${infer Name}/${infer Rest}` ? { [K in Name]: string } & PathParams<`/${Rest}`>
    : P extends `${string}:${infer Name}` ? { [K in Name]: string } : Record<never, string>;

/** What a request holds once its schema passed: the schema's type, or nothing known without one. */
type Validated<S, Unvalidated> = S extends TSchema ? Static<S> : Unvalidated;
export type Handler<P extends string, Q = undefined, B = undefined> =
  (req: RequestContext<Validated<Q, Record<string, unknown>>, Validated<B, unknown>, PathParams<P>>) => Promise<Reply>;

export interface RouteSchemas<Q, B> {
  query?: Q;
  body?: B;
  /** Path parameters with more than "a string" to say (patterns); the rest are strings. */
  params?: Schema;
  responses?: Readonly<Record<number, Schema>>;
}

/** The schema of a path's parameters: each `:name` a string. */
export function pathParamsSchema(path: string): Schema {
  const names = [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
  return Type.Object(Object.fromEntries(names.map((name) => [name, Type.String()])));
}

/**
 * A route-table row, as Fastify's route with a TypeBox type provider: the handler's `req.params`, `req.query`
 * and `req.body` are typed by the path and the schemas given here, which dispatch validates (and coerces)
 * before the handler runs: the one place where that guarantee becomes a type.
 */
export function route<P extends string, Q extends TSchema | undefined = undefined, B extends TSchema | undefined = undefined>(
  method: Method, path: P, handle: Handler<P, Q, B>, schemas: RouteSchemas<Q, B> = {},
): RouteDef {
  const { responses, ...requestSchemas } = schemas;
  return { method, path, responses: responses ?? {}, handle: handle as RouteDef['handle'], ...requestSchemas };
}

export const ok = (body: unknown, status = 200): Reply => ({ status, body });
export const noContent: Reply = { status: 204 };
