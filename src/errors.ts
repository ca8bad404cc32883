/**
 * Kindred's errors, as Meilisearch's: a stable code is what code and clients branch on, and the code implies the
 * HTTP status and the error's type; the message stays the spec's text for people. Domain code (services, the
 * parser, the pool) throws a `KindredError` with a code and never names a status: the HTTP edge
 * (src/http/error-reply.ts) looks the status up here and renders the error in its version's shape.
 */

/** What kind of failure a code is: the client's request, its credentials, the service's state, or a bug. */
export type ErrorType = 'invalid_request' | 'auth' | 'system' | 'internal';

interface ErrorKind {
  status: number;
  type: ErrorType;
}

const request = (status: number): ErrorKind => ({ status, type: 'invalid_request' });
const system = (status: number): ErrorKind => ({ status, type: 'system' });

/** Every code, its status and its type; docs/errors.md explains each (a test keeps the two in step). */
export const ERRORS = {
  // the request's parameters or body
  missing_parameter: request(400),
  invalid_parameter: request(400),
  unsupported_parameter: request(400),
  invalid_id: request(400),
  invalid_filter: request(400),
  invalid_search_query: request(400),
  invalid_json: request(400),
  unreadable_body: request(400),
  body_too_deep: request(400),
  body_too_large: request(413),
  too_few_words: request(406),
  // batches
  nested_batch: request(400),
  too_many_operations: request(400),
  invalid_sequential_flag: request(422),
  // what the request names
  route_not_found: request(404),
  document_not_found: request(404),
  tag_not_found: request(404),
  user_not_found: request(404),
  preference_not_found: request(404),
  tagging_not_found: request(404),
  document_cluster_model_not_found: request(404),
  cluster_not_found: request(404),
  already_exists: request(409),
  model_training: request(409),
  model_failed: request(409),
  // the article-extraction service (src/parser/errors.ts): the site or its address, answered 400 as the original did
  missing_url: request(400),
  unparsable_url: request(400),
  response_error: request(400),
  bad_status: request(400),
  too_large: request(400),
  unsupported_content_type: request(400),
  refused_address: request(400),
  // credentials
  missing_api_key: { status: 401, type: 'auth' },
  invalid_api_key: { status: 403, type: 'auth' },
  admin_token_required: { status: 401, type: 'auth' },
  // the service's state
  rate_limited: system(429),
  busy: system(503),
  unavailable: system(503),
  starting: system(503),
  // a bug: the message says nothing more
  internal: { status: 500, type: 'internal' },
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERRORS;

export const ERROR_CODE_HEADER = 'Kindred-Error-Code';
export const ERROR_TYPE_HEADER = 'Kindred-Error-Type';
export const ERROR_LINK_HEADER = 'Kindred-Error-Link';

/** Where a code is explained (Meilisearch's `link`). */
export const errorLink = (code: ErrorCode): string => `docs/errors.md#${code}`;

export interface ErrorDetails {
  /** What the error's answer adds (Retry-After, rate-limit figures). */
  headers?: Readonly<Record<string, string>>;
  /** The id the error is about, for versions that word the error themselves (v1's 409). */
  subject?: string;
}

/** A failure with a stable code. */
export class KindredError extends Error {
  readonly headers: Readonly<Record<string, string>>;
  readonly subject?: string;

  constructor(readonly code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = 'KindredError';
    this.headers = details.headers ?? {};
    this.subject = details.subject;
  }

  /** The same error with more headers on its answer. */
  withHeaders(headers: Readonly<Record<string, string>>): KindredError {
    return new KindredError(this.code, this.message, { headers: { ...this.headers, ...headers }, subject: this.subject });
  }
}

/** The worker pool's queue is full: retry in a second. */
export class BusyError extends KindredError {
  declare readonly code: 'busy';
  constructor() {
    super('busy', 'The server is busy; retry shortly', { headers: { 'Retry-After': '1' } });
    this.name = 'BusyError';
  }
}

export type EntityName = 'Document' | 'Tag' | 'User' | 'DocumentClusterModel';

const NOT_FOUND: Readonly<Record<EntityName, ErrorCode>> = {
  Document: 'document_not_found', Tag: 'tag_not_found', User: 'user_not_found', DocumentClusterModel: 'document_cluster_model_not_found',
};

export const notFound = (entity: EntityName): KindredError => new KindredError(NOT_FOUND[entity], `Couldn't find ${entity}`);
export const alreadyExists = (entity: EntityName, id: string): KindredError =>
  new KindredError('already_exists', `${entity} with the ID '${id}' already exists`, { subject: id });
export const invalidId = (): KindredError => new KindredError('invalid_id', 'id is invalid');
/** `<name> is missing` / `<name> is invalid`: the original's words for a parameter. */
export const missingParameter = (name: string): KindredError => new KindredError('missing_parameter', `${name} is missing`);
export const invalidParameter = (name: string, detail?: string): KindredError =>
  new KindredError('invalid_parameter', detail === undefined ? `${name} is invalid` : `${name} is invalid: ${detail}`);

/** Whether `error` is a Kindred error of that code. */
export const hasCode = (error: unknown, code: ErrorCode): error is KindredError => error instanceof KindredError && error.code === code;
