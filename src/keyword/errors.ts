/** A malformed or unsupported search request; the HTTP layer answers 400 with `message`. */
export class QueryError extends Error {
  override readonly name = 'QueryError';
  constructor(message: string) {
    super(message);
  }
}
