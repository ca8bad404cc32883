import { pathParamsSchema, type ApiVersion, type RouteDef, type Schema } from './route';

interface OpenApiOperation {
  summary: string;
  parameters: Array<Record<string, unknown>>;
  requestBody?: Record<string, unknown>;
  responses: Record<string, unknown>;
  security?: Array<Record<string, string[]>>;
}

const errorResponse = {
  description: 'Error',
  content: { 'application/json': { schema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } } },
};

/** The part of an object schema the parameter list is made from. */
interface ObjectSchema { properties?: Record<string, Record<string, unknown>>; required?: string[] }

/** Parameters of an object schema, as OpenAPI lists them. */
function parameters(schema: Schema | undefined, where: 'query' | 'path'): Array<Record<string, unknown>> {
  const { properties = {}, required: requiredNames = [] } = (schema ?? {}) as ObjectSchema;
  const required = new Set(requiredNames);
  return Object.entries(properties).map(([name, s]) => {
    const { default: _default, ...rest } = s;
    return { name, in: where, required: where === 'path' || required.has(name), schema: _default === undefined ? rest : { ...rest, default: _default } };
  });
}

/** What the route answers by status; bodies other than JSON (the word cloud's SVG) under their own type. */
function responsesOf(route: RouteDef, errorShape: Record<string, unknown>): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(route.responses)) {
    const type = route.path.endsWith('/word-cloud') ? 'image/svg+xml' : 'application/json';
    responses[status] = status === '204' ? { description: 'No content' } : { description: 'Success', content: { [type]: { schema } } };
  }
  if (Object.keys(responses).length === 0) responses['200'] = { description: 'Success' };
  return { ...responses, '4XX': errorShape };
}

/**
 * The OpenAPI 3.1 description of every served version, generated from the same route tables and
 * JSON Schemas the server validates with.
 */
export function openApiDocument(versions: Array<{ prefix: string; version: ApiVersion }>): Record<string, unknown> {
  const paths: Record<string, Record<string, OpenApiOperation>> = {};
  for (const { prefix, version } of versions) {
    for (const route of version.routes) {
      const openPath = prefix + (route.path === '/' ? '/' : route.path.replace(/:([A-Za-z_]+)/g, '{$1}'));
      const operation: OpenApiOperation = {
        summary: `${version.name}: ${route.method} ${route.path}`,
        parameters: [...parameters(route.params ?? pathParamsSchema(route.path), 'path'), ...parameters(route.query, 'query')],
        responses: responsesOf(route, version.name === 'v1' ? { description: 'Error (an HTML page; JSON for authentication and unknown paths)' } : errorResponse),
        security: version.keySource === 'header' ? [{ subscriptionKey: [] }] : [{ subscriptionKeyQuery: [] }],
      };
      if (route.body) operation.requestBody = { required: false, content: { 'application/json': { schema: route.body } } };
      paths[openPath] ??= {};
      paths[openPath][route.method.toLowerCase()] = operation;
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Kindred', version: '1', description: 'Self-hosted recommendation service: every version of the original interface.' },
    components: {
      securitySchemes: {
        subscriptionKey: { type: 'apiKey', in: 'header', name: 'Subscription-Key' },
        subscriptionKeyQuery: { type: 'apiKey', in: 'query', name: 'subscription-key' },
      },
    },
    paths,
  };
}
