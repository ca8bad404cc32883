import { KindredError } from '../errors';
import type { KeyResolver } from '../services/keys';
import type { Logger } from '../log';
import { rateLimitError, type TokenBucketLimiter } from '../rate-limit';
import type { TenantApi, TenantApis } from '../services/tenant';
import type { ApiVersion, Call, Reply, RouteDef } from './route';
import { Router } from './router';
import { isBatchPath } from './batch';
import { errorReply } from './error-reply';
import { compileBody, compileParams, compileQuery, type Validator } from './validation';

/** Told about every answered call: version, route template (or 'unmatched'), status, seconds. */
export type CallObserver = (version: string, route: string, method: string, status: number, seconds: number) => void;

export interface Services {
  observe?: CallObserver;
  /** Each key's door to the domain. */
  tenants: TenantApis;
  keys: KeyResolver;
  /** Where errors of batch operations are logged. */
  logger?: Logger;
  /** Per-key limit over every version (KINDRED_RATE_LIMIT); absent: no limit. */
  rateLimiter?: TokenBucketLimiter;
}

interface PreparedRoute {
  validateParams?: Validator;
  validateQuery?: Validator;
  validateBody?: Validator;
}

function header(headers: Call['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * What an HTTP call costs in rate-limit tokens: a batch costs one per operation (counted up front, so
 * a batch is admitted or refused whole), anything else one. Operations inside a batch are not charged again.
 */
export function callCost(call: Pick<Call, 'method' | 'path' | 'body'>): number {
  if (call.method !== 'POST' || !isBatchPath(call.path)) return 1;
  const ops = typeof call.body === 'object' && call.body !== null ? (call.body as { ops?: unknown }).ops : undefined;
  return Array.isArray(ops) ? Math.max(1, ops.length) : 1;
}

/**
 * Deepest JSON nesting accepted in a body. Stored records must stay inside MongoDB's 100 levels, and
 * the embedded store's msgpack encoder recurses (a meta nested 2,000 deep overflowed its stack: 500).
 */
export const MAX_BODY_DEPTH = 64;

/** Whether `value` nests objects/arrays deeper than `max` levels; iterative, so any depth is safe to ask about. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** A version's routes compiled once: matching, validation and authentication in front of each handler. */
export class VersionDispatcher {
  private readonly router: Router;
  private readonly prepared = new Map<RouteDef, PreparedRoute>();

  constructor(
    readonly version: ApiVersion,
    private readonly services: Services,
  ) {
    this.router = new Router(version.routes);
    for (const route of version.routes) {
      this.prepared.set(route, {
        validateParams: route.params ? compileParams(route.params) : undefined,
        validateQuery: route.query ? compileQuery(route.query) : undefined,
        validateBody: route.body ? compileBody(route.body) : undefined,
      });
    }
  }

  async dispatch(call: Call, nested = false): Promise<Reply> {
    const started = process.hrtime.bigint();
    const matched = { route: 'unmatched' };
    let reply: Reply;
    try {
      reply = await this.handle(call, nested, matched);
    } catch (error) {
      // A bug outside a batch goes to the app's error handler, which logs it with the request; inside one, only this operation fails.
      if (!(error instanceof KindredError)) {
        if (!nested) throw error;
        this.services.logger?.error({ err: error, method: call.method, url: call.path }, 'unhandled error in a batch operation');
      }
      reply = errorReply(error, this.version.renderError);
    }
    this.services.observe?.(this.version.name, matched.route, call.method, reply.status, Number(process.hrtime.bigint() - started) / 1e9);
    return reply;
  }

  private async authenticate(call: Call): Promise<TenantApi> {
    const key = this.version.keySource === 'header'
      ? header(call.headers, 'subscription-key')
      : (typeof call.query['subscription-key'] === 'string' ? call.query['subscription-key'] : undefined);
    if (!key) throw new KindredError('missing_api_key', 'No API key found in request');
    const tenant = await this.services.keys.tenantOf(key);
    if (!tenant) throw new KindredError('invalid_api_key', 'Invalid authentication credentials');
    return this.services.tenants.of(tenant);
  }

  private async handle(call: Call, nested: boolean, matched: { route: string }): Promise<Reply> {
    const tenant = await this.authenticate(call);
    if (!nested && this.services.rateLimiter) {
      const decision = this.services.rateLimiter.take(tenant.tenant, callCost(call));
      if (!decision.allowed) throw rateLimitError(decision);
    }
    const match = this.router.match(call.method, call.path);
    if (!match) throw this.version.pathNotFound();
    const { route, params } = match;
    matched.route = route.path;
    if (!nested && nestedDeeperThan(call.body, MAX_BODY_DEPTH)) throw new KindredError('body_too_deep', `Request body is nested deeper than ${MAX_BODY_DEPTH} levels`);
    const prepared = this.prepared.get(route)!;
    const paramsError = prepared.validateParams?.(params);
    if (paramsError) throw paramsError;
    // A copy the validator may coerce and trim. Not a spread: the validator's stores (defaults, coerced values) into a
    // spread's copy miss V8's inline caches (docs/decisions/throughput.md, "Eleventh session").
    const query = Object.assign({}, call.query);
    const queryError = prepared.validateQuery?.(query);
    if (queryError) throw queryError;
    let body = call.body;
    if (prepared.validateBody) {
      if (body === undefined) body = {};
      const bodyError = prepared.validateBody(body);
      if (bodyError) throw bodyError;
    }
    return route.handle({
      tenant, params, query, body, path: call.fullPath ?? call.path, rawQuery: call.query, nested,
      dispatch: (sub) => this.dispatch(sub, true),
    });
  }
}
