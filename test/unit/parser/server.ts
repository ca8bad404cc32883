import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local HTTP server for parser tests: routes by path, answers on 127.0.0.1 at a random port. */
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface TestServer {
  port: number;
  origin: string;
  requests: string[];
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startServer(): Promise<TestServer> {
  const routes = new Map<string, Handler>();
  const requests: string[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const handler = routes.get((req.url ?? '').split('?')[0]);
    if (handler) handler(req, res);
    else {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>not found</body></html>');
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    route: (path, handler) => routes.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export function html(res: http.ServerResponse, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
  res.end(body);
}
