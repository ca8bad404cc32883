/** Round trip through a worker thread: the health check uses it to prove the pool answers. */
export default function ping(payload: { at: number }): { at: number; thread: number } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { threadId } = require('node:worker_threads') as typeof import('node:worker_threads');
  return { at: payload.at, thread: threadId };
}
