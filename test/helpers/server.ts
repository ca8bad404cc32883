import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { mongoDatabaseUri } from './mongo';

export type Backend = 'embedded' | 'mongodb';

export const SERVER_ENTRY = path.join(__dirname, '..', '..', 'src', 'server.js');
export const CLI_ENTRY = path.join(__dirname, '..', '..', 'src', 'cli', 'kindred.js');

export interface ServerOptions {
  backend: Backend;
  keys?: string[];
  env?: Record<string, string>;
  /** Reuse a data directory / database (restart tests). */
  dataDir?: string;
  mongodbUri?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  mongodbUri?: string;
  child: ChildProcess;
  /** Logged lines, for assertions on what the server wrote. */
  lines: string[];
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export async function storageEnv(options: Pick<ServerOptions, 'backend' | 'dataDir' | 'mongodbUri'>) {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-test-'));
  const mongodbUri = options.backend === 'mongodb' ? options.mongodbUri ?? (await mongoDatabaseUri()) : undefined;
  const env: Record<string, string> = { KINDRED_DATA_DIR: dataDir };
  if (mongodbUri) env.MONGODB_URI = mongodbUri;
  return { dataDir, mongodbUri, env };
}

/** Servers a test left running (mocha --exit ends the run without their `stop`): killed when the run exits. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts a real server process on a free port and waits until it is listening. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const storage = await storageEnv(options);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MONGODB_URI: '',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    KINDRED_WORKERS: '1',
    // One word-vector cache for the whole run: converting the vectors takes seconds.
    KINDRED_CACHE_DIR: path.join(os.tmpdir(), 'kindred-test-cache'),
    KINDRED_API_KEYS: (options.keys ?? ['test-key']).join(','),
    ...storage.env,
    ...options.env,
  };
  const child = spawn(process.execPath, [SERVER_ENTRY], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const onLine = (line: string) => {
      if (lines.length < 10_000) lines.push(line);
      if (line.includes('kindred listening')) {
        try {
          resolve((JSON.parse(line) as { port: number }).port);
        } catch (error) {
          reject(error);
        }
      }
    };
    readline.createInterface({ input: child.stdout! }).on('line', onLine);
    readline.createInterface({ input: child.stderr! }).on('line', onLine);
    child.once('exit', (code, signal) => reject(new Error(`server exited early (${code ?? signal}):\n${lines.join('\n')}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir: storage.dataDir,
    mongodbUri: storage.mongodbUri,
    child,
    lines,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export function backends(): Backend[] {
  return ['embedded', 'mongodb'];
}
