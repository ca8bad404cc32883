import { Type, type Static } from 'typebox';
import { ApiError, badRequest, toApiError } from '../../errors';
import { withErrorCode } from '../../http/dispatch';
import type { Call, Reply, RequestContext, RouteDef } from '../../http/route';
import { jsonError, ok, route } from './handlers';

export const MAX_BATCH_OPS = 100;

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'get', 'post', 'put', 'delete'] as const;

const operationSchema = Type.Object({
  method: Type.Unsafe<(typeof METHODS)[number]>({ type: 'string', enum: METHODS }),
  url: Type.String({ pattern: '^/' }),
  params: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object' })),
  headers: Type.Optional(Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string' } })),
});

/** One operation of `POST /batch`, as clients (the CLI among them) send it. */
export type BatchOperation = Static<typeof operationSchema>;

/** `ops` is checked by hand: the original answered a missing list and a bad `sequential` flag in its own words. */
const batchBody = Type.Object({ ops: Type.Optional(Type.Array(operationSchema)), sequential: Type.Optional(Type.Unknown()) });

function toCall(op: BatchOperation): Call {
  const method = op.method.toUpperCase();
  const url = new URL(op.url, 'http://batch.invalid');
  const query: Record<string, unknown> = {};
  for (const [key, value] of url.searchParams) {
    const name = key.endsWith('[]') ? key.slice(0, -2) : key;
    query[name] = query[name] === undefined ? value : ([] as unknown[]).concat(query[name], value);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(op.headers ?? {})) headers[name.toLowerCase()] = value;
  const readsQuery = method === 'GET' || method === 'DELETE';
  if (readsQuery) Object.assign(query, op.params ?? {});
  return { method, path: url.pathname, query, headers, body: readsQuery ? undefined : op.params };
}

function result(reply: Reply) {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.body !== undefined) headers['Content-Type'] = 'application/json';
  return { body: reply.body ?? null, headers, status: reply.status };
}

async function runOne(req: RequestContext, op: BatchOperation): Promise<ReturnType<typeof result>> {
  try {
    const call = toCall(op);
    if (call.path.replace(/\/+$/, '') === '/batch') throw badRequest('a batch cannot contain another batch');
    return result(await req.dispatch(call));
  } catch (error) {
    const apiError = toApiError(error);
    if (apiError) return result(withErrorCode(jsonError(apiError), apiError));
    return result({ status: 500, body: { message: 'Internal server error' } });
  }
}

/** The original's own loader sends `"sequential": "true"`: the strings count as the booleans they spell. */
function sequentialFlag(value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new ApiError(422, 'Sequential flag is currently required', {}, 'invalid_request');
}

/**
 * POST /batch: operations run in-process through the same version's routes, each authenticated
 * by the key in its own headers. `sequential: false` runs them concurrently; results keep order.
 */
export function batchRoute(): RouteDef {
  return route('POST', '/batch', async (req) => {
    const { ops, sequential: flag } = req.body;
    const sequential = sequentialFlag(flag);
    if (ops === undefined) throw badRequest('ops is missing');
    if (ops.length > MAX_BATCH_OPS) throw badRequest(`ops may hold at most ${MAX_BATCH_OPS} operations`);
    const results = [];
    if (sequential) {
      for (const op of ops) results.push(await runOne(req, op));
    } else {
      results.push(...(await Promise.all(ops.map((op) => runOne(req, op)))));
    }
    return ok({ results });
  }, { body: batchBody });
}
