/**
 * Stable codes of errors (as Meilisearch's `code`): what code and clients branch on, while messages stay the
 * spec's texts for people. Sent in the `Kindred-Error-Code` header; bodies keep their documented shapes.
 */
export type ErrorCode =
  | 'invalid_request' | 'invalid_id' | 'missing_api_key' | 'invalid_api_key' | 'route_not_found'
  | 'document_not_found' | 'tag_not_found' | 'user_not_found' | 'document_cluster_model_not_found'
  | 'cluster_not_found' | 'preference_not_found' | 'tagging_not_found' | 'not_found'
  | 'already_exists' | 'conflict' | 'model_training' | 'model_failed' | 'too_few_words'
  | 'rate_limited' | 'busy' | 'unavailable'
  // the article-extraction service's (src/parser/errors.ts)
  | 'missing_url' | 'unparsable_url' | 'response_error' | 'bad_status' | 'too_large' | 'unsupported_content_type' | 'refused_address';

export const ERROR_CODE_HEADER = 'Kindred-Error-Code';

const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'invalid_request', 401: 'missing_api_key', 403: 'invalid_api_key', 404: 'not_found', 406: 'too_few_words',
  409: 'conflict', 422: 'invalid_request', 429: 'rate_limited', 503: 'unavailable',
};

/** The one error type that becomes an HTTP answer; each API version renders it in its own shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly code: ErrorCode = CODE_OF_STATUS[status] ?? 'invalid_request',
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The worker pool's queue is full (a domain condition, not an HTTP one): `toApiError` answers it 503. */
export class BusyError extends Error {
  readonly code = 'busy' as const;
  constructor() {
    super('The server is busy; retry shortly');
    this.name = 'BusyError';
  }
}

/** The HTTP answer of an error, if it has one (anything else is a 500). */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof BusyError) return new ApiError(503, error.message, { 'Retry-After': '1' }, error.code);
  return undefined;
}

export type EntityName = 'Document' | 'Tag' | 'User' | 'DocumentClusterModel';

const NOT_FOUND: Readonly<Record<EntityName, ErrorCode>> = {
  Document: 'document_not_found', Tag: 'tag_not_found', User: 'user_not_found', DocumentClusterModel: 'document_cluster_model_not_found',
};

export const notFound = (entity: EntityName): ApiError => new ApiError(404, `Couldn't find ${entity}`, {}, NOT_FOUND[entity]);
export const alreadyExists = (entity: EntityName, id: string): ApiError =>
  new ApiError(409, `${entity} with the ID '${id}' already exists`, {}, 'already_exists');
export const badRequest = (message: string): ApiError => new ApiError(400, message);
export const invalidId = (): ApiError => new ApiError(400, 'id is invalid', {}, 'invalid_id');
