/** The one error type that becomes an HTTP answer; each API version renders it in its own shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type EntityName = 'Document' | 'Tag' | 'User' | 'DocumentClusterModel';

export const notFound = (entity: EntityName): ApiError => new ApiError(404, `Couldn't find ${entity}`);
export const alreadyExists = (entity: EntityName, id: string): ApiError =>
  new ApiError(409, `${entity} with the ID '${id}' already exists`);
export const badRequest = (message: string): ApiError => new ApiError(400, message);
export const invalidId = (): ApiError => badRequest('id is invalid');
