/** What a handler answers: a status, a body to serialise (or send as is) and headers. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
