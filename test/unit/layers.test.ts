import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');
const DEPCRUISE = path.join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');

/** Runs dependency-cruiser with the project's layer rules over `dirs` of `cwd`; its exit status is the violation count. */
function cruise(cwd: string, dirs: string[]): { status: number | null; output: string } {
  const run = spawnSync(DEPCRUISE, [...dirs, '--config', CONFIG, '--output-type', 'err'], { cwd, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** The layers of ../shared/DESIGN.md, as rules in .dependency-cruiser.cjs (issue 16). */
describe('layers', function () {
  this.timeout(120_000);

  it('src and workers keep every layer rule', () => {
    const { status, output } = cruise(ROOT, ['src', 'workers']);
    assert.equal(status, 0, output);
    assert.match(output, /no dependency violations found/);
  });

  it('a deliberate violation of each rule fails the check', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-layers-'));
    try {
      const files: Record<string, string> = {
        'src/http/edge.ts': 'export const edge = 1;\n',
        'src/storage/repo.ts': "import { service } from '../services/service';\nexport const repo = service;\n",
        'src/services/service.ts': "import { edge } from '../http/edge';\nexport const service = edge;\n",
        'src/index/derived.ts': "import { service } from '../services/service';\nexport const derived = service;\n",
        'src/api/routes.ts': "import { repo } from '../storage/repo';\nexport const routes = repo;\n",
        'workers/task.ts': "import { repo } from '../src/storage/repo';\nexport default repo;\n",
      };
      for (const [file, text] of Object.entries(files)) {
        fs.mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), text);
      }
      fs.copyFileSync(path.join(ROOT, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
      const { status, output } = cruise(dir, ['src', 'workers']);
      assert.notEqual(status, 0, output);
      for (const rule of ['workers-are-pure-compute', 'services-know-no-http', 'storage-knows-no-domain', 'api-through-services', 'index-below-services']) {
        assert.match(output, new RegExp(rule), `${rule} not reported:\n${output}`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
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
