import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { freePort } from '../../bench/support';

/** The project's launcher of nginx as a key-routing load balancer (deploy/nginx.conf). */
export const RUN_BALANCER = path.join(__dirname, '..', '..', '..', 'deploy', 'run-balancer');

export interface RunningBalancer {
  url: string;
  /** nginx's directory: nginx.conf, upstreams.conf, access.log. */
  dir: string;
  child: ChildProcess;
  /** What nginx and the launcher wrote to stderr. */
  lines: string[];
  accessLog(): string[];
  stop(): Promise<void>;
}

/** Starts nginx through deploy/run-balancer in front of `nodes` (host:port each); resolves once it answers. */
export async function startBalancer(nodes: string[], env: Record<string, string> = {}): Promise<RunningBalancer> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-balancer-test-'));
  const child = spawn(RUN_BALANCER, [`127.0.0.1:${port}`, ...nodes], {
    env: { ...process.env, KINDRED_BALANCER_DIR: dir, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // nginx's workers outlive a killed master: end it with SIGTERM even if the tests stop abruptly.
  const stopOnExit = () => child.kill('SIGTERM');
  process.once('exit', stopOnExit);
  const lines: string[] = [];
  readline.createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
  let running = true;
  const exited = new Promise<void>((resolve) => child.once('exit', () => {
    running = false;
    resolve();
  }));
  const url = `http://127.0.0.1:${port}`;
  const failed = exited.then(() => { throw new Error(`the balancer exited:\n${lines.join('\n')}`); });
  const listening = (async () => {
    while (running) {
      try {
        // Any answer, even 502 while no node is up, means nginx is listening.
        await fetch(`${url}/healthz`);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  })();
  await Promise.race([listening, failed]);
  failed.catch(() => undefined);
  return {
    url,
    dir,
    child,
    lines,
    accessLog: () => fs.readFileSync(path.join(dir, 'access.log'), 'utf8').split('\n').filter(Boolean),
    async stop() {
      process.removeListener('exit', stopOnExit);
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
