import { WebSocket } from 'undici';

/** The inspector address a process started with `--inspect` printed on stderr, if it did. */
export function inspectorUrl(lines: readonly string[]): string | undefined {
  return lines.map((l) => /Debugger listening on (ws:\/\/\S+)/.exec(l)?.[1]).find(Boolean);
}

/**
 * A full garbage collection in a process, through its inspector: without it the heap in use includes
 * garbage V8 has not collected yet, and says nothing of leaks.
 */
export async function collectGarbage(url: string): Promise<void> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })));
    socket.addEventListener('message', (event) => {
      if ((JSON.parse(String(event.data)) as { id?: number }).id === 1) resolve();
    });
    socket.addEventListener('error', () => reject(new Error('inspector connection failed')));
  });
  socket.close();
}
