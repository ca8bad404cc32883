import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { loadNewsgroups, shuffled } from './support';

/**
 * The labelled corpora of bench:quality (issue 32), each as one fixed split: train documents go into a key,
 * test texts are `similar-to-text` queries, precision@10 counts results with the query's label. Read from
 * ../shared/data at run time (never copied into the repository).
 */
export interface LabelledText {
  id: string;
  label: string;
  text: string;
}

export interface CorpusSplit {
  /** e.g. `reuters`, `20ng`, `debian-de`, `debian-de-en` */
  name: string;
  /** what the label is */
  label: string;
  train: LabelledText[];
  test: LabelledText[];
}

const DATA = process.env.KINDRED_SHARED_DATA ?? path.join(__dirname, '..', '..', '..', 'shared', 'data');

function readJsonl<T>(file: string): T[] {
  return zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);
}

/** Document ids may not hold '+' or '.' (Debian package names do). */
const idOf = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`);

export const REUTERS_SEED = 21578;
export const REUTERS_QUERIES = 800;

/**
 * Reuters-21578 (ModApte articles with a body and a topic), first topic as label; exact duplicate bodies removed
 * (the first kept: 9,677 articles), a seeded 80/20 split, the first 800 held-out articles as queries (`from`: the
 * held-out articles from that one on instead, e.g. 800 for the 1,136 that bench:quality never asks).
 */
export function reuters(queries = REUTERS_QUERIES, from = 0): CorpusSplit {
  const seen = new Set<string>();
  const docs = readJsonl<{ id: string; topic: string; text: string }>(path.join(DATA, 'reuters-21578', 'reuters-21578.jsonl.gz'))
    .filter((r) => r.text.trim() !== '' && !seen.has(r.text) && seen.add(r.text))
    .map((r) => ({ id: idOf(r.id), label: r.topic, text: r.text }));
  const order = shuffled(docs, REUTERS_SEED);
  const cut = Math.floor(order.length * 0.8);
  return { name: from ? `reuters-from${from}` : 'reuters', label: 'first topic', train: order.slice(0, cut), test: order.slice(cut + from, cut + from + queries) };
}

/** 20 Newsgroups by date: train posts, the non-empty test posts (header block stripped), newsgroup as label. */
export function newsgroups(queries = Infinity): CorpusSplit {
  const test = loadNewsgroups('test').filter((p) => p.text.trim() !== '');
  return { name: '20ng', label: 'newsgroup', train: loadNewsgroups('train'), test: test.slice(0, queries) };
}

export const DEBIAN_SEED = 14;

let englishDescriptions: Map<string, { section: string; text: string }> | undefined;

/**
 * Debian descriptions in `language` and, as `<name>-en`, the English descriptions of the same packages (their
 * twins), with the split of bench:languages (seed 14, 80/20, duplicates removed); Debian section as label.
 */
export function debianTwins(language: string, queries = 1000, maxDocs = Infinity): { translated: CorpusSplit; english: CorpusSplit } {
  englishDescriptions ??= new Map(readJsonl<{ id: string; section: string; summary: string; description: string }>(
    path.join(DATA, 'debian-packages', 'debian-packages-bookworm.jsonl.gz')).map((p) => [p.id, { section: p.section, text: `${p.summary}\n${p.description}` }]));
  const english = englishDescriptions;
  const seen = new Set<string>();
  const records = readJsonl<{ id: string; section: string; text: string }>(path.join(DATA, 'debian-translations', `debian-${language}.jsonl.gz`))
    .filter((r) => english.has(r.id) && r.text.trim() !== '' && !seen.has(r.id) && seen.add(r.id));
  const chosen = shuffled(records, DEBIAN_SEED).slice(0, maxDocs);
  const cut = Math.floor(chosen.length * 0.8);
  const split = (docs: LabelledText[], name: string): CorpusSplit => ({ name, label: 'section', train: docs.slice(0, cut), test: docs.slice(cut, cut + queries) });
  return {
    translated: split(chosen.map((r) => ({ id: idOf(r.id), label: r.section, text: r.text })), `debian-${language}`),
    english: split(chosen.map((r) => ({ id: idOf(r.id), label: r.section, text: english.get(r.id)!.text })), `debian-${language}-en`),
  };
}
