import { ERRORS, ERROR_CODE_HEADER, ERROR_LINK_HEADER, ERROR_TYPE_HEADER, errorLink, KindredError, type ErrorCode, type ErrorType } from '../errors';
import type { Reply } from './reply';

/** An error as the HTTP edge answers it: the code, with the status and type it implies. */
export interface HttpError {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly subject?: string;
}

/** How a version shows an error (v2–v6: JSON `{message}`; v1: HTML pages). */
export type ErrorRenderer = (error: HttpError) => Reply;

/** What a bug answers: nothing of its message, stack or path reaches the client. */
const INTERNAL = new KindredError('internal', 'Internal server error');

export function httpErrorOf(error: KindredError): HttpError {
  const { status, type } = ERRORS[error.code];
  return { code: error.code, status, type, message: error.message, headers: error.headers, subject: error.subject };
}

/** The spec's error body, `{message}`, with the error's own headers. */
export const jsonError: ErrorRenderer = (error) => ({ status: error.status, body: { message: error.message }, headers: { ...error.headers } });

/**
 * The one place an error becomes an answer: a Kindred error in the version's shape, anything else (a bug) as
 * 500 `internal`. Every answer carries its code, type and link in headers, since the spec fixes the bodies.
 */
export function errorReply(error: unknown, render: ErrorRenderer): Reply {
  const http = httpErrorOf(error instanceof KindredError ? error : INTERNAL);
  const reply = render(http);
  return {
    ...reply,
    headers: { ...reply.headers, [ERROR_CODE_HEADER]: http.code, [ERROR_TYPE_HEADER]: http.type, [ERROR_LINK_HEADER]: errorLink(http.code) },
  };
}
