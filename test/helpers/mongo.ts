import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

let server: { uri: string; child: ChildProcess } | undefined;
let starting: Promise<string> | undefined;
let databaseCounter = 0;

const BINARY = path.join(require.resolve('@jongodb/memory-server-bin-linux-x64-gnu/package.json'), '..', 'bin', 'jongodb');

/** Starts the wire-compatible test server once per test process; it dies with the process. */
function startTestServer(): Promise<string> {
  starting ??= new Promise<string>((resolve, reject) => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const child = spawn(BINARY, ['--host=127.0.0.1', `--port=${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /(mongodb:\/\/[^\s/]+)/.exec(output);
      if (match) {
        server = { uri: match[1], child };
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`test MongoDB server exited (${code}): ${output}`)));
    process.once('exit', () => child.kill('SIGKILL'));
  });
  return starting;
}

/**
 * A fresh database for one suite: on MONGODB_URI when it is set (a real mongod), else on the
 * bundled test server.
 */
export async function mongoDatabaseUri(): Promise<string> {
  const base = process.env.MONGODB_URI || (await startTestServer());
  const url = new URL(base);
  url.pathname = `/kindred_test_${process.pid}_${++databaseCounter}`;
  return url.toString();
}

export function stopTestServer(): void {
  server?.child.kill('SIGKILL');
}
