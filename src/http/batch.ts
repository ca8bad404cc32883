import { Type, type Static } from 'typebox';
import { KindredError, missingParameter } from '../errors';
import { errorReply, jsonError } from './error-reply';
import { ok, route, type Call, type Reply, type RequestContext, type RouteDef } from './route';

/** The one path of a batch, in every version that has one. */
export const BATCH_PATH = '/batch';
export const MAX_BATCH_OPS = 100;

export const isBatchPath = (path: string): boolean => path.replace(/\/+$/, '') === BATCH_PATH;

const operationSchema = Type.Object({
  method: Type.Enum(['GET', 'POST', 'PUT', 'DELETE', 'get', 'post', 'put', 'delete']),
  url: Type.String({ pattern: '^/' }),
  params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
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
    const prior = query[name];
    query[name] = prior === undefined ? value : [prior, value].flat();
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(op.headers ?? {})) headers[name.toLowerCase()] = value;
  const readsQuery = method === 'GET' || method === 'DELETE';
  if (readsQuery) Object.assign(query, op.params ?? {});
  return { method, path: url.pathname, query, headers, body: readsQuery ? undefined : op.params };
}

/** A result as the original listed it: body (or null), headers, status. */
function result(reply: Reply) {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.body !== undefined) headers['Content-Type'] = 'application/json';
  return { body: reply.body ?? null, headers, status: reply.status };
}

async function runOne(req: RequestContext, op: BatchOperation): Promise<ReturnType<typeof result>> {
  try {
    const call = toCall(op);
    if (isBatchPath(call.path)) throw new KindredError('nested_batch', 'a batch cannot contain another batch');
    return result(await req.dispatch(call));
  } catch (error) {
    return result(errorReply(error, jsonError));
  }
}

const batchResults = Type.Object({
  results: Type.Array(Type.Object({ body: Type.Unknown(), headers: Type.Record(Type.String(), Type.String()), status: Type.Integer() }, { additionalProperties: false })),
}, { additionalProperties: false });

/** The original's own loader sends `"sequential": "true"`: the strings count as the booleans they spell. */
function sequentialFlag(value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new KindredError('invalid_sequential_flag', 'Sequential flag is currently required');
}

/**
 * POST /batch: operations run in-process through the same version's dispatcher, each authenticated
 * by the key in its own headers. `sequential: false` runs them concurrently; results keep order.
 */
export function batchRoute(): RouteDef {
  return route('POST', BATCH_PATH, async (req) => {
    const { ops, sequential: flag } = req.body;
    const sequential = sequentialFlag(flag);
    if (ops === undefined) throw missingParameter('ops');
    if (ops.length > MAX_BATCH_OPS) throw new KindredError('too_many_operations', `ops may hold at most ${MAX_BATCH_OPS} operations`);
    const results = [];
    if (sequential) {
      for (const op of ops) results.push(await runOne(req, op));
    } else {
      results.push(...(await Promise.all(ops.map((op) => runOne(req, op)))));
    }
    return ok({ results });
  }, { body: batchBody, responses: { 200: batchResults } });
}
