import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * npm run fuzz:long: the fuzz test (test/integration/fuzz.test.ts) with FUZZ_RUNS (default 100,000)
 * v6/v5/v3/v2 requests plus a fifth as many v1 form requests, FUZZ_CONCURRENCY (default 4) generators
 * at once, and a 30 s settle before the memory is read again. Prints and writes (FUZZ_SUMMARY) the 5xx
 * count, hangs (requests past 30 s), non-JSON error bodies, and the server's RSS and heap: after warm-up,
 * right after the run and after the settle period.
 */
const ROOT = path.join(__dirname, '..', '..');
const SUMMARY = process.env.FUZZ_SUMMARY ?? path.join(os.tmpdir(), 'kindred-fuzz-long.json');
/** "Back to baseline": the settled heap (after a full GC) within this many MB of the warmed-up one (after a full GC). */
const TOLERANCE_MB = Number(process.env.FUZZ_MEMORY_TOLERANCE_MB ?? 20);

interface Memory { rssMb: number; heapUsedMb: number }
interface Summary {
  requests: number; seconds: number; serverErrors: number; hangs: number; nonJsonErrors: number; documentsAtEnd: number;
  statuses: Record<string, number>; baseline: Memory; afterRun: Memory; afterSettle: Memory; settleMs: number;
}

async function main(): Promise<void> {
  const env = {
    ...process.env,
    FUZZ_RUNS: process.env.FUZZ_RUNS ?? '100000',
    FUZZ_CONCURRENCY: process.env.FUZZ_CONCURRENCY ?? '4',
    FUZZ_SETTLE_MS: process.env.FUZZ_SETTLE_MS ?? '30000',
    FUZZ_MEMORY_TOLERANCE_MB: String(TOLERANCE_MB),
    FUZZ_SUMMARY: SUMMARY,
  };
  const load = os.loadavg();
  console.log(`fuzz:long: ${env.FUZZ_RUNS} requests (+ a fifth on v1), ${env.FUZZ_CONCURRENCY} at once, load ${load.map((l) => l.toFixed(1)).join(' ')}`);
  const mocha = require.resolve('mocha/bin/mocha.js');
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, [mocha, '--no-config', '--require', 'dist/test/helpers/warm-up.js', '--exit', 'dist/test/integration/fuzz.test.js'], { cwd: ROOT, env, stdio: 'inherit' });
    child.once('exit', (c) => resolve(c ?? 1));
  });
  const s = JSON.parse(fs.readFileSync(SUMMARY, 'utf8')) as Summary;
  const heapDelta = s.afterSettle.heapUsedMb - s.baseline.heapUsedMb;
  const rssDelta = s.afterSettle.rssMb - s.baseline.rssMb;
  console.log(`\nrequests ${s.requests} in ${(s.seconds / 60).toFixed(1)} min (${(s.requests / s.seconds).toFixed(0)}/s); statuses ${JSON.stringify(s.statuses)}`);
  console.log(`5xx ${s.serverErrors}, hangs ${s.hangs}, non-JSON error bodies ${s.nonJsonErrors}; documents stored at the end ${s.documentsAtEnd}`);
  console.log(`RSS MB: baseline ${s.baseline.rssMb.toFixed(0)}, after the run ${s.afterRun.rssMb.toFixed(0)}, after ${s.settleMs / 1000} s ${s.afterSettle.rssMb.toFixed(0)} (${rssDelta >= 0 ? '+' : ''}${rssDelta.toFixed(0)})`);
  console.log(`heap used MB: baseline ${s.baseline.heapUsedMb.toFixed(1)}, after the run ${s.afterRun.heapUsedMb.toFixed(1)}, after ${s.settleMs / 1000} s ${s.afterSettle.heapUsedMb.toFixed(1)} (${heapDelta >= 0 ? '+' : ''}${heapDelta.toFixed(1)}; back to baseline = within ${TOLERANCE_MB} MB: ${heapDelta < TOLERANCE_MB ? 'yes' : 'no'})`);
  console.log(`summary written to ${SUMMARY}`);
  process.exitCode = code;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
