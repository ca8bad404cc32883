import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');
const DEPCRUISE = path.join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const ARCHITECTURE = path.join(ROOT, 'docs', 'architecture.md');

interface Floor { name: string; what: string; rooms: string[] }
interface Violation { from: string; to: string; rule: { name: string; severity: string } }
interface CruisedModule { source: string }

const { floors } = require(path.join(ROOT, 'floors.cjs')) as { floors: Floor[] };
const { forbidden } = require(CONFIG) as { forbidden: { name: string }[] };
const rooms = floors.flatMap((floor) => floor.rooms);

/** Runs dependency-cruiser with the project's rules over `dirs` of `cwd`; its exit status is the violation count. */
function cruise(cwd: string, dirs: string[], ...flags: string[]): { status: number | null; output: string } {
  const run = spawnSync(DEPCRUISE, [...dirs, '--config', CONFIG, ...flags], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** The modules and violations of a cruise (the json reporter exits 0 whatever it finds). */
function cruiseJson(cwd: string, dirs: string[]): { modules: CruisedModule[]; violations: Violation[] } {
  const result = JSON.parse(cruise(cwd, dirs, '--output-type', 'json').output) as { modules: CruisedModule[]; summary: { violations: Violation[] } };
  return { modules: result.modules, violations: result.summary.violations };
}

/** The module a fixture puts in a room: a file in a folder room, or the room itself when it is a file. */
const fileIn = (room: string, stem: string): string => (room.endsWith('/') ? `${room}${stem}.ts` : room);

/** The floors as docs/architecture.md must draw them: top floor first, each importing the one below. */
function floorsDiagram(): string {
  const top = [...floors].reverse();
  return [
    'flowchart TB',
    ...top.map((floor) => `  ${floor.name}["<b>${floor.name}</b><br/>${floor.rooms.join(' · ')}"]`),
    ...top.slice(1).map((floor, i) => `  ${top[i].name} --> ${floor.name}`),
  ].join('\n');
}

/** The layers of docs/architecture.md, as rules in .dependency-cruiser.cjs (issues 16 and 31). */
describe('layers', function () {
  this.timeout(180_000);

  it('src, workers and bench keep every layer rule', () => {
    const { status, output } = cruise(ROOT, ['src', 'workers', 'bench'], '--output-type', 'err');
    assert.equal(status, 0, output);
    assert.match(output, /no dependency violations found/);
  });

  it('every folder and file at the top of src, and workers and bench, is a room on exactly one floor', () => {
    const entries = fs.readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || entry.name.endsWith('.ts'))
      .map((entry) => (entry.isDirectory() ? `src/${entry.name}/` : `src/${entry.name}`));
    assert.deepEqual([...rooms].sort(), [...entries, 'workers/', 'bench/'].sort());
    assert.equal(new Set(rooms).size, rooms.length, 'a room on two floors');
  });

  it('a deliberate violation of each rule fails the check, and every room below the top is caught importing upward', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-layers-'));
    try {
      const imports = new Map<string, string[]>();
      const addImport = (from: string, to: string): void => {
        const list = imports.get(from) ?? [];
        list.push(to);
        imports.set(from, list);
        if (!imports.has(to)) imports.set(to, []);
      };
      // Every room of every floor but the top imports the next floor up.
      floors.slice(0, -1).forEach((floor, i) => {
        const above = fileIn(floors[i + 1].rooms[0], 'fixture-target');
        for (const room of floor.rooms) addImport(fileIn(room, 'fixture-up'), above);
      });
      addImport('src/text/fixture-a.ts', 'src/text/fixture-b.ts');
      addImport('src/text/fixture-b.ts', 'src/text/fixture-a.ts');
      addImport('src/unmapped/fixture.ts', 'src/domain.ts');
      addImport('src/keyword/fixture-alone.ts', 'src/embedding/fixture-target.ts');
      addImport('workers/fixture-compute.ts', 'src/storage/fixture-target.ts');
      addImport('src/services/fixture-http.ts', 'src/http/fixture-target.ts');
      addImport('src/storage/fixture-domain.ts', 'src/services/fixture-target.ts');
      addImport('src/api/fixture-store.ts', 'src/storage/fixture-target.ts');
      addImport('src/index/fixture-services.ts', 'src/services/fixture-target.ts');
      for (const [file, targets] of imports) {
        const lines = targets.map((target, n) => {
          const specifier = path.relative(path.dirname(file), target).replace(/\.ts$/, '');
          return `import { x as x${n} } from '${specifier.startsWith('.') ? specifier : `./${specifier}`}';\nexport const y${n} = x${n};\n`;
        });
        fs.mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), `${lines.join('')}export const x = 1;\n`);
      }
      fs.copyFileSync(path.join(ROOT, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));

      const { violations } = cruiseJson(dir, ['src', 'workers']);
      const report = violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).join('\n');
      assert.ok(violations.every((v) => v.rule.severity === 'error'), report);
      const reported = new Set(violations.map((v) => v.rule.name));
      for (const { name } of forbidden) assert.ok(reported.has(name), `${name} not reported:\n${report}`);
      floors.slice(0, -1).forEach((floor) => {
        for (const room of floor.rooms) {
          const caught = violations.some((v) => v.rule.name === `no-upward-from-${floor.name}` && v.from === fileIn(room, 'fixture-up'));
          assert.ok(caught, `${room} importing upward not reported:\n${report}`);
        }
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('docs/architecture.md draws the floors of floors.cjs', () => {
    const doc = fs.readFileSync(ARCHITECTURE, 'utf8');
    const drawn = /```mermaid\n([\s\S]*?)\n```/.exec(doc)?.[1];
    assert.equal(drawn, floorsDiagram(), `docs/architecture.md should draw:\n${floorsDiagram()}`);
    for (const floor of floors) assert.ok(doc.includes(`**${floor.name}**`), `the text says nothing of the ${floor.name} floor`);
  });

  it('the keyword engine and its tests use nothing of Kindred but the text scanner, isRecord and (tests) a seeded PRNG', () => {
    const { modules } = cruiseJson(ROOT, ['test/unit/keyword']);
    const reached = modules.map((m) => m.source).filter((source) => /^(src|workers)\//.test(source));
    assert.ok(reached.some((source) => source.startsWith('src/keyword/')), reached.join('\n'));
    assert.deepEqual(reached.filter((source) => !/^src\/(keyword\/|text\/|domain\.ts$|random\.ts$)/.test(source)), []);
  });

  it('route tables reach a tenant only through its services (no store, index or change bus off the request)', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith('.ts')) {
          fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
            if (/\.tenant\.(store|indexes|changes)\b/.test(line)) offenders.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
          });
        }
      }
    };
    walk(path.join(ROOT, 'src', 'api'));
    assert.deepEqual(offenders, []);
  });
});
