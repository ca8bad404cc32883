import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { apiCaller, inParallel, median, ROOT, shuffled, startKindred } from './support';
import { LANGUAGE_CORPORA, TOPICS } from '../test/fixtures/languages';

/**
 * bench:languages, through HTTP: Debian package descriptions in German, French, Russian and Japanese beside
 * the English descriptions of the same packages, each in its own key, in one run. Seeded 80/20 split of the
 * packages; the test texts are POST /documents/similar-to-text queries; precision@10 by `section`. Also a
 * mixed key (English and German halves) and the hand-made Chinese and Arabic corpora of the tests.
 *
 *   BENCH_LANGUAGES=de,fr,ru,ja   BENCH_QUERIES=1000 (per language)   BENCH_MAX_DOCS=all
 */
const DATA = path.join(ROOT, '..', 'shared', 'data');
const LANGUAGES = (process.env.BENCH_LANGUAGES ?? 'de,fr,ru,ja').split(',');
const QUERIES = Number(process.env.BENCH_QUERIES ?? 1000);
const MAX_DOCS = Number(process.env.BENCH_MAX_DOCS ?? Infinity);

interface Doc { id: string; section: string; text: string }

function readJsonl<T>(file: string): T[] {
  return zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);
}


const english = new Map(readJsonl<{ id: string; section: string; summary: string; description: string }>(path.join(DATA, 'debian-packages', 'debian-packages-bookworm.jsonl.gz'))
  .map((p) => [p.id, { id: p.id, section: p.section, text: `${p.summary}\n${p.description}` }]));

function twins(language: string): { translated: Doc[]; english: Doc[] } {
  const records = readJsonl<{ id: string; section: string; text: string }>(path.join(DATA, 'debian-translations', `debian-${language}.jsonl.gz`))
    .filter((r) => english.has(r.id) && r.text.trim() !== '');
  // A package listed twice (several versions in the index) would be its own neighbour across the split.
  const seen = new Set<string>();
  const unique = records.filter((r) => !seen.has(r.id) && seen.add(r.id));
  const chosen = shuffled(unique, 14).slice(0, MAX_DOCS);
  // Package names may hold '+' and '.', which document ids may not.
  const idOf = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`);
  return {
    translated: chosen.map((r) => ({ id: idOf(r.id), section: r.section, text: r.text })),
    english: chosen.map((r) => ({ ...english.get(r.id)!, id: idOf(r.id) })),
  };
}

interface Figures { docs: number; queries: number; precision: number; p50: number; p99: number; sameLanguage?: number }

/** Ingests `train` into `key`, waits until the last document is indexed, then queries with `test`. */
async function measure(base: string, key: string, train: Doc[], test: Doc[], languageOf?: Map<string, string>): Promise<Figures> {
  const call = apiCaller(key);
  const sectionOf = new Map(train.map((d) => [d.id, d.section]));
  await inParallel(train, 16, (d) => call(`${base}/documents/${encodeURIComponent(d.id)}`, 'POST', { text: d.text }));
  const last = train[train.length - 1]!;
  for (let waited = 0; waited < 600_000; waited += 200) {
    const hits = await call(`${base}/documents/similar-to-text`, 'POST', { text: last.text, number: 1 }) as Array<{ id: string }>;
    if (hits[0]?.id === last.id) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const latencies: number[] = [];
  let same = 0;
  let sameLanguage = 0;
  let returned = 0;
  await inParallel(test, 4, async (q) => {
    const t0 = performance.now();
    const hits = await call(`${base}/documents/similar-to-text`, 'POST', { text: q.text, number: 10 }) as Array<{ id: string }>;
    latencies.push(performance.now() - t0);
    same += hits.filter((h) => sectionOf.get(h.id) === q.section).length;
    returned += hits.length;
    if (languageOf) sameLanguage += hits.filter((h) => languageOf.get(h.id) === languageOf.get(q.id)).length;
  });
  latencies.sort((a, b) => a - b);
  return {
    docs: train.length, queries: test.length, precision: same / (10 * test.length),
    p50: median(latencies), p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    ...(languageOf ? { sameLanguage: sameLanguage / Math.max(1, returned) } : {}),
  };
}

function split(docs: Doc[]): { train: Doc[]; test: Doc[] } {
  const cut = Math.floor(docs.length * 0.8);
  return { train: docs.slice(0, cut), test: docs.slice(cut).slice(0, QUERIES) };
}

/** Top-1 accuracy of similar-to-text on the tests' hand-written corpora (three topics, four documents each). */
async function handMade(base: string, language: 'zh' | 'ar' | 'de' | 'ru' | 'ja'): Promise<{ top1: number; top3: number }> {
  const key = `bench-hand-${language}`;
  const call = apiCaller(key);
  const corpus = LANGUAGE_CORPORA[language];
  for (const topic of TOPICS) for (const [i, text] of corpus.documents[topic].entries()) await call(`${base}/documents/${topic}-${i}`, 'POST', { text });
  let top1 = 0;
  let top3 = 0;
  for (const topic of TOPICS) {
    const hits = await call(`${base}/documents/similar-to-text`, 'POST', { text: corpus.queries[topic], number: 3 }) as Array<{ id: string }>;
    if (hits[0]?.id.startsWith(topic)) top1++;
    top3 += hits.filter((h) => h.id.startsWith(topic)).length;
  }
  return { top1: top1 / TOPICS.length, top3: top3 / (3 * TOPICS.length) };
}

async function main(): Promise<void> {
  const keys = [...LANGUAGES.flatMap((l) => [`bench-${l}`, `bench-${l}-en`]), 'bench-mixed', 'bench-hand-zh', 'bench-hand-ar'];
  const kindred = await startKindred(keys.join(','), { KINDRED_REFIT_GROWTH: '1.3' });
  const { base } = kindred;
  const rows: string[] = [];
  const out: Record<string, unknown> = { date: new Date().toISOString(), queriesPerLanguage: QUERIES };
  try {
    for (const language of LANGUAGES) {
      const { translated, english: twin } = twins(language);
      const t = split(translated);
      const e = split(twin);
      const started = Date.now();
      const own = await measure(base, `bench-${language}`, t.train, t.test);
      const en = await measure(base, `bench-${language}-en`, e.train, e.test);
      const ratio = own.precision / en.precision;
      out[language] = { own, english: en, ratio };
      rows.push(`| ${language} | ${own.docs} | ${own.queries} | ${own.precision.toFixed(4)} | ${en.precision.toFixed(4)} | **${ratio.toFixed(3)}** | ${own.p50.toFixed(1)} / ${own.p99.toFixed(1)} | ${((Date.now() - started) / 1000).toFixed(0)} s |`);
      console.error(rows[rows.length - 1]);
    }
    // Mixed key: German texts of one half of the packages, English texts of the other half.
    const { translated, english: twin } = twins('de');
    const half = Math.floor(translated.length / 2);
    const mixed = [...translated.slice(0, half), ...twin.slice(half)].map((d, i) => ({ ...d, id: `${i < half ? 'de' : 'en'}-${d.id}` }));
    const languageOf = new Map(mixed.map((d) => [d.id, d.id.slice(0, 2)]));
    const m = split(shuffled(mixed, 7));
    const mixedFigures = await measure(base, 'bench-mixed', m.train, m.test, languageOf);
    out.mixed = mixedFigures;
    rows.push(`| mixed en+de | ${mixedFigures.docs} | ${mixedFigures.queries} | ${mixedFigures.precision.toFixed(4)} | – | results in the query's language: **${(mixedFigures.sameLanguage! * 100).toFixed(1)} %** | ${mixedFigures.p50.toFixed(1)} / ${mixedFigures.p99.toFixed(1)} | |`);
    for (const language of ['zh', 'ar'] as const) {
      const h = await handMade(base, language);
      out[`hand-${language}`] = h;
      rows.push(`| ${language} (hand-made, 12 docs, 3 topics) | 12 | 3 | top-1 ${h.top1.toFixed(2)}, top-3 ${h.top3.toFixed(2)} | – | – | | |`);
    }
  } finally {
    kindred.stop();
  }
  console.log('| language | train docs | queries | precision@10 by section | English twin | ratio | similar-to-text p50 / p99 ms | time |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log(JSON.stringify(out));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
