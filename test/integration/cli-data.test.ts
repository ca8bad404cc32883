import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '../helpers/client';
import { CLI_ENTRY, startServer, type Backend, type RunningServer } from '../helpers/server';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function cliAgainst(server: () => RunningServer) {
  return (...args: string[]): Promise<CliResult> =>
    new Promise((resolve) => {
      execFile(process.execPath, [CLI_ENTRY, ...args, '--url', server().url], { env: { ...process.env, KINDRED_WORKERS: '1' } }, (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
}

const write = (dir: string, name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};
const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

async function allIds(api: Client): Promise<string[]> {
  const res = await api.get<string[]>('/documents/ids');
  assert.equal(res.status, 200);
  return res.body;
}

/** Every line of every exported file, sorted: two keys hold the same data when these are equal. */
function exportedLines(dir: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of ['documents', 'tags', 'taggings', 'users', 'preferences']) {
    out[name] = fs.readFileSync(path.join(dir, `${name}.jsonl`), 'utf8').split('\n').filter(Boolean).sort();
  }
  return out;
}

function importSuite(backend: Backend, full: boolean) {
  describe(`kindred import / export${full ? ' / eval / demo' : ''} against a running server (${backend})`, function () {
    this.timeout(60_000);
    let server: RunningServer;
    let dir: string;
    const cli = cliAgainst(() => server);
    before(async () => {
      server = await startServer({ backend, keys: ['key-a', 'key-b', 'key-c', 'key-d', 'key-e'] });
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-cli-data-'));
    });
    after(async () => {
      await server?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    async function roundTrip() {
      const out1 = path.join(dir, 'export-a');
      const exported = await cli('export', '--key', 'key-a', '--out', out1);
      assert.equal(exported.code, 0, exported.stderr);
      const original = exportedLines(out1);
      assert.equal(original.documents.length, 4);
      assert.equal(original.preferences.length, 4);
      assert.ok(original.tags.some((l) => JSON.parse(l).id === 'ocean' && JSON.parse(l).type === 'topic'));
      const files = ['documents', 'tags', 'taggings', 'users', 'preferences'].map((t) => path.join(out1, `${t}.jsonl`));
      const imported = await cli('import', '--key', 'key-c', ...files);
      assert.equal(imported.code, 0, imported.stdout + imported.stderr);
      const out2 = path.join(dir, 'export-c');
      assert.equal((await cli('export', '--key', 'key-c', '--out', out2)).code, 0);
      assert.deepEqual(exportedLines(out2), original);
    }

    it('imports JSONL and CSV of every type, telling the type from the fields, and reports failures', async () => {
      const api = new Client(server.url, 'key-a');
      const files = [
        write(dir, 'docs.csv', 'id,text,meta,published_at\n' +
          'c1,"Quoted text, with a comma\nand a second line","{""lang"":""en""}",2024-01-02T03:04:05Z\n' +
          'c2,"He said ""hello"" to the sea",,\n'),
        write(dir, 'more-docs.jsonl', jsonl([
          { id: 'j1', text: 'Sailing boats on a calm sea at dawn', meta: { kind: 'sea' } },
          { id: 'j2', text: 'Mountain climbing in winter snow', created_at: 'ignored' },
        ])),
        write(dir, 'labels.jsonl', jsonl([{ id: 'ocean', type: 'topic', meta: { colour: 'blue' } }, { id: 'alps', type: 'topic' }])),
        write(dir, 'tags.csv', 'id\nplain\n'),
        write(dir, 'people.csv', 'id\nu1\nu2\n'),
        write(dir, 'links.jsonl', jsonl([{ document_id: 'j1', tag_id: 'ocean' }, { document_id: 'c1', tag_id: 'ocean' }, { document_id: 'j2', tag_id: 'newtag' }])),
        write(dir, 'likes.csv', 'user_id,document_id\nu1,j1\nu1,c1\nu3,j2\n'),
        write(dir, 'more-links.csv', 'document_id,tag_id\nc2,alps\n'),
        write(dir, 'more-people.jsonl', jsonl([{ id: 'u4', created_at: '2020-01-01T00:00:00Z' }])),
      ];
      const run = await cli('import', '--key', 'key-a', ...files);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /docs\.csv \(documents\): imported 2, skipped 0 .*failed 0/);
      assert.match(run.stdout, /labels\.jsonl \(tags\): imported 2/);
      assert.match(run.stdout, /tags\.csv \(tags\): imported 1/);
      assert.match(run.stdout, /people\.csv \(users\): imported 2/);
      assert.match(run.stdout, /links\.jsonl \(taggings\): imported 3/);
      assert.match(run.stdout, /likes\.csv \(preferences\): imported 3/);
      assert.match(run.stdout, /more-links\.csv \(taggings\): imported 1/);
      assert.match(run.stdout, /more-people\.jsonl \(users\): imported 1/);

      const c1 = await api.get('/documents/c1?fields=text,meta,published_at');
      assert.equal(c1.body.text, 'Quoted text, with a comma\nand a second line');
      assert.deepEqual(c1.body.meta, { lang: 'en' });
      assert.equal(new Date(c1.body.published_at).toISOString(), '2024-01-02T03:04:05.000Z');
      assert.equal((await api.get('/documents/c2')).body.text, 'He said "hello" to the sea');
      assert.deepEqual((await api.get('/tags/ocean')).body.meta, { colour: 'blue' });
      assert.equal((await api.get('/tags/plain')).status, 200);
      assert.deepEqual((await api.get('/documents/j1/tags')).body.map((t: { id: string }) => t.id), ['ocean']);
      assert.deepEqual((await api.get('/documents/c2/tags')).body.map((t: { id: string }) => t.id), ['alps']);
      assert.equal((await api.get('/users/u4')).status, 201);
      assert.equal((await api.get('/users/u2')).status, 201);
      // u3 was not in the users file: the preference import created it.
      assert.deepEqual((await api.get('/users/u3/preferences')).body.map((p: { document_id: string }) => p.document_id), ['j2']);
      assert.deepEqual((await api.get('/users/u1/preferences')).body.map((p: { document_id: string }) => p.document_id).sort(), ['c1', 'j1']);

      // Re-running counts everything as already there; --type overrides detection; failures give exit 1 and reasons.
      const again = await cli('import', '--key', 'key-a', files[0]);
      assert.match(again.stdout, /imported 0, skipped 2/);
      assert.equal(again.code, 0);
      const typed = await cli('import', '--key', 'key-a', '--type', 'tags', write(dir, 'ids.jsonl', jsonl([{ id: 'typed-tag' }])));
      assert.match(typed.stdout, /\(tags\): imported 1/);
      const bad = await cli('import', '--key', 'key-a', write(dir, 'bad.jsonl', jsonl([{ user_id: 'u1', document_id: 'nope' }, { user_id: 'u1', document_id: 'j2' }])) + '');
      assert.equal(bad.code, 1);
      assert.match(bad.stdout, /imported 1, skipped 0 \(already present\), failed 1/);
      assert.match(bad.stdout, /line 1: 404 Couldn't find Document/);
      const unknown = await cli('import', '--key', 'key-a', write(dir, 'odd.jsonl', jsonl([{ name: 'x' }])));
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /cannot tell the record type/);
    });

    it('exports a key in the format import reads: export → import into another key round-trips', roundTrip);

    // The rest exercises the CLI, not the storage backend: embedded only (the MongoDB test server inserts slowly).
    if (!full) return;

    it('resumes an interrupted import: every record present exactly once', async () => {
      const rows = Array.from({ length: 2000 }, (_, i) => ({ id: `r${i}`, text: `record number ${i} about ${['rivers', 'forests', 'cities'][i % 3]}` }));
      const file = write(dir, 'many.jsonl', jsonl(rows));
      const state = path.join(dir, 'state');
      const first = await cli('import', '--key', 'key-b', '--state', state, '--stop-after', '1234', file);
      assert.equal(first.code, 3, first.stdout + first.stderr);
      const checkpoints = fs.readdirSync(state);
      assert.equal(checkpoints.length, 1);
      const saved = JSON.parse(fs.readFileSync(path.join(state, checkpoints[0]), 'utf8')) as { offset: number; line: number };
      assert.equal(saved.line, 1234);
      assert.equal(saved.offset, Buffer.byteLength(jsonl(rows.slice(0, 1234))));
      const api = new Client(server.url, 'key-b');
      assert.equal((await allIds(api)).length, 1234);

      const second = await cli('import', '--key', 'key-b', '--state', state, file);
      assert.equal(second.code, 0, second.stdout + second.stderr);
      assert.match(second.stdout, /imported 2000, skipped 0 .* 766 records .*resumed at line 1235/);
      assert.deepEqual(fs.readdirSync(state), []);
      const ids = await allIds(api);
      assert.equal(ids.length, 2000);
      assert.deepEqual(new Set(ids), new Set(rows.map((r) => r.id)));
    });

    it('survives a kill mid-import: the re-run continues from the checkpoint', async () => {
      const rows = Array.from({ length: 2000 }, (_, i) => ({ id: `k${i}`, text: `killed import record ${i} about ${['music', 'painting'][i % 2]}` }));
      const file = write(dir, 'killed.jsonl', jsonl(rows));
      const state = path.join(dir, 'kill-state');
      const child = spawn(process.execPath, [CLI_ENTRY, 'import', '--key', 'key-d', '--state', state, '--inflight', '1', '--url', server.url, file], { stdio: 'ignore' });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      let checkpoint: string | undefined;
      for (let i = 0; i < 500 && !checkpoint; i++) {
        await sleep(10);
        checkpoint = fs.existsSync(state) ? fs.readdirSync(state).find((f) => f.endsWith('.json')) : undefined;
      }
      child.kill('SIGKILL');
      await exited;
      assert.ok(checkpoint, 'a checkpoint was written before the kill');
      const saved = JSON.parse(fs.readFileSync(path.join(state, checkpoint), 'utf8')) as { line: number };
      assert.ok(saved.line > 0 && saved.line < 2000, `killed mid-way (line ${saved.line})`);
      const rerun = await cli('import', '--key', 'key-d', '--state', state, file);
      assert.equal(rerun.code, 0, rerun.stdout + rerun.stderr);
      assert.match(rerun.stdout, /resumed at line/);
      const ids = await allIds(new Client(server.url, 'key-d'));
      assert.equal(ids.length, 2000);
      assert.equal(new Set(ids).size, 2000);
    });

    it('eval reports P@k of content, hybrid and popularity; content beats popularity on planted topics', async () => {
      // Eight narrow topics of ten documents; each user likes six documents of one topic.
      const topics: Record<string, string[]> = {
        football: ['goal', 'striker', 'league', 'stadium', 'referee', 'penalty', 'midfielder', 'tournament'],
        cooking: ['recipe', 'oven', 'garlic', 'simmer', 'sauce', 'bake', 'flour', 'butter'],
        astronomy: ['telescope', 'galaxy', 'planet', 'orbit', 'nebula', 'comet', 'asteroid', 'eclipse'],
        music: ['guitar', 'melody', 'concert', 'orchestra', 'violin', 'chord', 'rhythm', 'piano'],
        gardening: ['tulip', 'compost', 'seedling', 'hedge', 'shovel', 'greenhouse', 'lawn', 'fertilizer'],
        sailing: ['yacht', 'harbour', 'anchor', 'mast', 'sail', 'keel', 'regatta', 'deck'],
        medicine: ['patient', 'surgeon', 'vaccine', 'diagnosis', 'clinic', 'nurse', 'symptom', 'therapy'],
        finance: ['stock', 'dividend', 'investor', 'bond', 'portfolio', 'banking', 'loan', 'interest'],
      };
      let seed = 12345;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      const docs: object[] = [];
      const prefs: object[] = [];
      for (const [topic, words] of Object.entries(topics)) {
        for (let i = 0; i < 10; i++) docs.push({ id: `${topic}-${i}`, text: `${Array.from({ length: 12 }, () => words[Math.floor(random() * words.length)]).join(' ')}.` });
        for (let u = 0; u < 6; u++) {
          for (let j = 0; j < 6; j++) prefs.push({ user_id: `${topic}-fan-${u}`, document_id: `${topic}-${(u + j) % 10}` });
        }
      }
      const load = await cli('import', '--key', 'key-e', write(dir, 'topic-docs.jsonl', jsonl(docs)), write(dir, 'topic-prefs.jsonl', jsonl(prefs)));
      assert.equal(load.code, 0, load.stdout + load.stderr);
      const run = await cli('eval', '--key', 'key-e', '--k', '5', '--holdout', '0.34', '--seed', '7', '--json');
      assert.equal(run.code, 0, run.stderr);
      const report = JSON.parse(run.stdout) as { usersEvaluated: number; results: Record<string, { precision: number; recall: number; users: number }> };
      assert.equal(report.usersEvaluated, 48);
      assert.equal(report.results.content.users, 48);
      assert.ok(report.results.content.precision > report.results.popularity.precision, JSON.stringify(report.results));
      assert.ok(report.results.content.precision > 0.2, JSON.stringify(report.results));
      assert.ok(report.results.hybrid.precision > 0, JSON.stringify(report.results));
      const table = await cli('eval', '--key', 'key-e', '--k', '5', '--seed', '7');
      assert.match(table.stdout, /^content\s+\d\.\d{4}\s+\d\.\d{4}/m);
      assert.match(table.stdout, /^hybrid\s+\d\.\d{4}/m);
      assert.match(table.stdout, /^popularity\s+\d\.\d{4}/m);
      // Issue 32: the key's content model and how its shape was chosen.
      assert.match(table.stdout, /^content model: (lsa|word-vectors), \d+ dimensions, fitted on \d+ documents, (second stage on|dense only)/m);
      const contentModel = (JSON.parse(run.stdout) as { contentModel?: { kind: string; shape?: { chosenBy: string } } }).contentModel;
      assert.ok(contentModel?.shape?.chosenBy, JSON.stringify(contentModel));
    });

    it('demo loads the shipped Debian data set and prints requests that answer', async () => {
      const run = await cli('demo', '--key', 'key-e', '--limit', '200');
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /documents\.jsonl\.gz \(documents\): imported 200/);
      const similar = /curl -s -H 'Subscription-Key: key-e' '([^']+\/similar\?[^']+)'/.exec(run.stdout);
      assert.ok(similar, run.stdout);
      const res = await fetch(similar[1], { headers: { 'Subscription-Key': 'key-e' } });
      assert.equal(res.status, 200);
      const items = (await res.json()) as Array<{ id: string; meta: { section: string } }>;
      assert.equal(items.length, 5);
      assert.ok(items.every((i) => typeof i.meta.section === 'string'));
      const user = /'([^']+\/users\/[^/]+\/recommendations[^']*)'/.exec(run.stdout);
      const recs = await fetch(user![1], { headers: { 'Subscription-Key': 'key-e' } });
      assert.equal(recs.status, 200);
      assert.ok(((await recs.json()) as unknown[]).length > 0);
    });
  });
}

importSuite('embedded', true);
importSuite('mongodb', false);
