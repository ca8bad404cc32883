import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import autocannon from 'autocannon';
import { seededRandom } from '../src/random';

export const ROOT = path.join(__dirname, '..', '..');
export const SERVER_ENTRY = path.join(ROOT, 'dist', 'src', 'server.js');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export async function waitForHealth(url: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not become healthy`);
}

export interface Spawned {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a node script with the given environment on a free port; waits for /healthz. */
export async function spawnServer(script: string, env: Record<string, string>): Promise<Spawned> {
  const port = await freePort();
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url);
  return {
    url,
    child,
    stop: () => new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** CPU time the server process spent per request (user + system), in microseconds: steadier than req/s on a shared machine. */
  cpuMicrosPerRequest?: number;
}

/** user + system CPU seconds of a process so far, from /proc. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = require('node:fs').readFileSync(`/proc/${pid}/stat`, 'utf8') as string;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

export async function load(options: autocannon.Options, serverPid?: number): Promise<LoadResult> {
  const before = serverPid === undefined ? undefined : cpuSeconds(serverPid);
  const result = await autocannon(options);
  const after = serverPid === undefined ? undefined : cpuSeconds(serverPid);
  const total = result.requests.total;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    cpuMicrosPerRequest: before !== undefined && after !== undefined && total > 0 ? ((after - before) * 1e6) / total : undefined,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function peakRssMb(pid: number): number | undefined {
  try {
    // VmHWM: the process's peak resident set size.
    const status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8') as string;
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `task` over `items` with at most `concurrency` in flight. */
export async function inParallel<T>(items: T[], concurrency: number, task: (item: T, i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) {
      const i = next++;
      await task(items[i], i);
    }
  }));
}

/** A JSON call to the API with a subscription key; a 4xx or 5xx throws with the answer. */
export function apiCaller(key: string) {
  return async (url: string, method: string, body?: unknown): Promise<any> => {
    const res = await fetch(url, { method, headers: { 'Subscription-Key': key, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : undefined;
  };
}

export interface KindredProcess {
  base: string;
  child: ChildProcess;
  /** The server's inspector (with `inspect`), e.g. to force a garbage collection before reading memory. */
  inspectorUrl?: string;
  /** Stops the server and removes its data directory. */
  stop(): void;
}

export interface KindredOptions {
  /** Use and keep this data directory (large corpora ingested once, measured across runs) instead of a fresh one. */
  keepDataDir?: string;
  /** Start the server with `--inspect` on a free port. */
  inspect?: boolean;
}

/** Starts the built server on a free port with one key; resolves once healthy. */
export async function startKindred(key: string, env: Record<string, string> = {}, options: KindredOptions = {}): Promise<KindredProcess> {
  const { keepDataDir, inspect = false } = options;
  const dataDir = keepDataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-bench-'));
  const port = await freePort();
  const child = spawn(process.execPath, [...(inspect ? ['--inspect=127.0.0.1:0'] : []), SERVER_ENTRY], {
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', KINDRED_DATA_DIR: dataDir, KINDRED_API_KEYS: key,
      LOG_LEVEL: 'warn', MONGODB_URI: '', KINDRED_CACHE_DIR: process.env.KINDRED_CACHE_DIR ?? path.join(os.tmpdir(), 'kindred-test-cache'),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    if (stderr.length < 100) stderr.push(...chunk.toString().split('\n'));
  });
  let stopping = false;
  // A server that dies mid-run otherwise shows only as the client's "fetch failed" (its log goes to the ignored stdout).
  child.once('exit', (code, signal) => {
    if (!stopping) console.error(`kindred server (pid ${child.pid}) exited unasked: code ${code}, signal ${signal}`);
  });
  const base = `http://127.0.0.1:${port}`;
  // A kept directory may hold a large corpus whose indexes are built before the server reports healthy.
  await waitForHealth(base, keepDataDir ? 60 * 60_000 : 60_000);
  return {
    base,
    child,
    inspectorUrl: stderr.map((l) => /Debugger listening on (ws:\/\/\S+)/.exec(l)?.[1]).find(Boolean),
    stop() {
      stopping = true;
      // The server writes its last snapshot while stopping: remove the directory once it has exited.
      child.once('exit', () => {
        if (!keepDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
      });
      child.kill('SIGTERM');
    },
  };
}

export interface NewsgroupPost {
  id: string;
  label: string;
  text: string;
}

const NEWSGROUPS = path.join(ROOT, '..', 'shared', 'data', '20newsgroups');

/** A 20 Newsgroups split with each post's header block stripped (the protocol of issue #3). */
export function loadNewsgroups(split: 'train' | 'test'): NewsgroupPost[] {
  const lines = zlib.gunzipSync(fs.readFileSync(path.join(NEWSGROUPS, `20newsgroups-bydate-${split}.jsonl.gz`))).toString('utf8').split('\n');
  return lines.filter(Boolean).map((line, i) => {
    const o = JSON.parse(line) as { label: string; text: string };
    const blank = o.text.indexOf('\n\n');
    return { id: `${split}-${i}`, label: o.label, text: blank >= 0 ? o.text.slice(blank + 2) : o.text };
  });
}

/** Every real text of ../shared/data: Debian package descriptions (summary and description), then 20 Newsgroups posts (header block stripped). */
export function realTexts(): string[] {
  const lines = (file: string) => zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n').filter(Boolean);
  const shared = path.join(ROOT, '..', 'shared', 'data');
  const texts = lines(path.join(shared, 'debian-packages', 'debian-packages-bookworm.jsonl.gz')).map((l) => {
    const o = JSON.parse(l) as { summary?: string; description?: string };
    return `${o.summary ?? ''}\n${o.description ?? ''}`;
  });
  for (const split of ['train', 'test']) {
    for (const l of lines(path.join(shared, '20newsgroups', `20newsgroups-bydate-${split}.jsonl.gz`))) {
      const text = (JSON.parse(l) as { text: string }).text;
      texts.push(text.slice(text.indexOf('\n\n') + 2));
    }
  }
  return texts.filter((t) => t.trim());
}

/**
 * BENCH_CORPUS=generated: texts made of real words (the vocabulary of the real corpora), each from
 * one of 2,000 topics of 60 words, with a fifth of its words from the whole vocabulary: enough
 * structure for neighbours to mean something, at any size (1M documents per key).
 */
export function generatedCorpus(real: string[], count: number): string[] {
  const vocabulary = [...new Set(real.join(' ').toLowerCase().match(/[a-z]{3,15}/g) ?? [])];
  const next = seededRandom(42);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  const topics = Array.from({ length: 2000 }, () => Array.from({ length: 60 }, () => pick(vocabulary)));
  return Array.from({ length: count }, () => {
    const topic = pick(topics);
    const words = Array.from({ length: 20 + Math.floor(next() * 30) }, () => (next() < 0.8 ? pick(topic) : pick(vocabulary)));
    return words.join(' ');
  });
}

/** utime + stime (seconds) of one /proc stat line. */
function statCpuSeconds(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface ThreadCpu {
  /** The main thread (tid = pid): the event loop. */
  main: number;
  /** Every thread of the process, exited ones included. */
  total: number;
  /** Each live thread's CPU seconds, by tid. */
  threads: Map<number, number>;
}

/** CPU seconds (user + system) of a process's main thread, of all its threads, and of each live thread, from /proc. */
export function threadCpu(pid: number): ThreadCpu | undefined {
  try {
    const total = statCpuSeconds(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    const threads = new Map<number, number>();
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        threads.set(Number(tid), statCpuSeconds(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
      } catch {
        // the thread exited meanwhile
      }
    }
    return { main: threads.get(pid) ?? 0, total, threads };
  } catch {
    return undefined;
  }
}

/** The machine's busy and total CPU seconds so far (all cores), from the first line of /proc/stat. */
export function machineCpu(): { busy: number; total: number } {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((a, b) => a + b, 0) / 100;
  const idle = (fields[3]! + fields[4]!) / 100;
  return { busy: total - idle, total };
}

/** The same order on every run. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
