import type { TSchema } from 'typebox';
import type { ApiError } from '../errors';
import type { TenantApi } from '../services/tenant';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A JSON Schema (built with TypeBox, so handlers get its type); ajv compiles it once at start-up. */
export type Schema = TSchema;

/** `Query` and `Body` are what the route's schemas guarantee (see `route` in src/api/common/handlers.ts). */
export interface RequestContext<Query = Record<string, unknown>, Body = unknown> {
  /** The key's services: the only way a handler reaches the domain. */
  tenant: TenantApi;
  params: Record<string, string>;
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

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteDef {
  method: Method;
  /** Express-like: literal segments and `:name` parameters. */
  path: string;
  query?: Schema;
  body?: Schema;
  handle(req: RequestContext): Promise<Reply>;
}

/** Where a version reads the subscription key from. */
export type KeySource = 'header' | 'query';

export interface ApiVersion {
  name: string;
  keySource: KeySource;
  routes: RouteDef[];
  /** Turns an error into this version's error response. */
  renderError(error: ApiError): Reply;
  /** The answer for a path outside this version's API. */
  pathNotFound(): ApiError;
}
