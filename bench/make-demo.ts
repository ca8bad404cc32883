/**
 * Writes the demo data set of `kindred demo` (demo/*.jsonl.gz) from the Debian bookworm package descriptions
 * (/work/shared/data/debian-packages) and a Debian Packages index for versions and relations (`apt-cache
 * dumpavail` on a bookworm machine, or --packages FILE). See demo/README.md for the choices.
 *
 *   node dist/bench/make-demo.js [--data FILE.jsonl.gz] [--packages FILE] [--out DIR] [--documents 3000]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

interface Described {
  id: string;
  source: string;
  section: string;
  homepage: string;
  summary: string;
  description: string;
}

interface Stanza {
  version: string;
  depends: string[];
}

const SKIP_SECTIONS = new Set(['libs', 'oldlibs', 'libdevel', 'debug', 'doc', 'kernel', 'metapackages', 'localization', 'fonts']);
/** Characters of the long description kept per package (the shipped file stays under 1.5 MB). */
const MAX_DESCRIPTION = 700;
/** A user needs this many dependencies among the demo documents to say something about taste. */
const MIN_PREFERENCES = 4;
/** Dependencies of more than this share of all users (python3, perl) say nothing about a package: left out. */
const MAX_DEPENDENCY_SHARE = 0.1;

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
}

/** Kindred ids take letters, digits, dash and underscore; Debian names also use '.' and '+'. */
export function idOf(name: string): string {
  return name.replace(/\./g, '_').replace(/\+/g, 'plus');
}

/** Package → version and the first alternative of each Depends and Recommends entry, from a Packages index. */
function readPackagesIndex(text: string): Map<string, Stanza> {
  const out = new Map<string, Stanza>();
  for (const block of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    let key = '';
    for (const line of block.split('\n')) {
      if (/^\s/.test(line) && key) fields.set(key, `${fields.get(key)} ${line.trim()}`);
      else {
        const at = line.indexOf(':');
        if (at <= 0) continue;
        key = line.slice(0, at);
        fields.set(key, line.slice(at + 1).trim());
      }
    }
    const name = fields.get('Package');
    if (!name || out.has(name)) continue;
    const depends: string[] = [];
    for (const field of ['Depends', 'Recommends']) {
      for (const entry of (fields.get(field) ?? '').split(',')) {
        const first = entry.split('|')[0].trim().split(/[\s(:]/)[0];
        if (first && !depends.includes(first)) depends.push(first);
      }
    }
    out.set(name, { version: fields.get('Version') ?? '', depends });
  }
  return out;
}

function writeJsonlGz(file: string, rows: object[]): number {
  const bytes = zlib.gzipSync(rows.map((r) => JSON.stringify(r)).join('\n') + '\n', { level: 9 });
  fs.writeFileSync(file, bytes);
  return bytes.length;
}

function main(): void {
  const dataFile = option('--data', '/work/shared/data/debian-packages/debian-packages-bookworm.jsonl.gz');
  const packagesFile = option('--packages', '');
  const outDir = option('--out', path.join(__dirname, '..', '..', 'demo'));
  const nDocuments = Number(option('--documents', '3000'));

  const described = new Map<string, Described>();
  for (const line of zlib.gunzipSync(fs.readFileSync(dataFile)).toString('utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as Described;
    described.set(r.id, r);
  }
  const index = readPackagesIndex(packagesFile ? fs.readFileSync(packagesFile, 'utf8') : execFileSync('apt-cache', ['dumpavail'], { maxBuffer: 1 << 30 }).toString('utf8'));

  // Documents: the packages most depended on (over the whole archive) outside the library/doc sections.
  const dependents = new Map<string, number>();
  for (const s of index.values()) for (const d of s.depends) dependents.set(d, (dependents.get(d) ?? 0) + 1);
  const chosen = [...described.values()]
    .filter((p) => p.description && !SKIP_SECTIONS.has(p.section) && index.has(p.id))
    .sort((a, b) => (dependents.get(b.id) ?? 0) - (dependents.get(a.id) ?? 0) || (a.id < b.id ? -1 : 1))
    .slice(0, nDocuments);
  const ids = new Set<string>();
  const documents = [];
  for (const p of chosen) {
    const id = idOf(p.id);
    if (ids.has(id)) continue;
    ids.add(id);
    const description = p.description.length > MAX_DESCRIPTION ? `${p.description.slice(0, p.description.lastIndexOf(' ', MAX_DESCRIPTION))} …` : p.description;
    const meta: Record<string, string> = { package: p.id, version: index.get(p.id)!.version, section: p.section, source: p.source };
    if (p.homepage) meta.homepage = p.homepage;
    documents.push({ id, text: `${p.summary}.\n\n${description}`, meta });
  }
  const byName = new Map(chosen.map((p) => [p.id, idOf(p.id)]));

  const sections = [...new Set(chosen.map((p) => p.section))].sort();
  const tags = sections.map((s) => ({ id: idOf(s), type: 'section', meta: { name: s } }));
  const taggings = chosen.map((p) => ({ document_id: idOf(p.id), tag_id: idOf(p.section) }));

  // Users: every package with enough dependencies among the documents "prefers" those dependencies.
  const wants = new Map<string, string[]>();
  for (const [name, s] of index) {
    const liked = s.depends.filter((d) => d !== name && byName.has(d)).map((d) => byName.get(d)!);
    if (liked.length >= MIN_PREFERENCES) wants.set(name, liked);
  }
  const share = new Map<string, number>();
  for (const liked of wants.values()) for (const d of liked) share.set(d, (share.get(d) ?? 0) + 1);
  const generic = new Set([...share].filter(([, n]) => n > wants.size * MAX_DEPENDENCY_SHARE).map(([d]) => d));
  const users: Array<{ id: string }> = [];
  const preferences: Array<{ user_id: string; document_id: string }> = [];
  for (const [name, liked] of [...wants].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const kept = liked.filter((d) => !generic.has(d));
    if (kept.length < MIN_PREFERENCES) continue;
    const user = idOf(name);
    users.push({ id: user });
    for (const d of kept) preferences.push({ user_id: user, document_id: d });
  }

  fs.mkdirSync(outDir, { recursive: true });
  const sizes = {
    documents: writeJsonlGz(path.join(outDir, 'documents.jsonl.gz'), documents),
    tags: writeJsonlGz(path.join(outDir, 'tags.jsonl.gz'), tags),
    taggings: writeJsonlGz(path.join(outDir, 'taggings.jsonl.gz'), taggings),
    users: writeJsonlGz(path.join(outDir, 'users.jsonl.gz'), users),
    preferences: writeJsonlGz(path.join(outDir, 'preferences.jsonl.gz'), preferences),
  };
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  process.stdout.write(`${documents.length} documents, ${tags.length} tags, ${taggings.length} taggings, ${users.length} users, ` +
    `${preferences.length} preferences (left out as too common: ${[...generic].join(', ')}); ${(total / 1024).toFixed(0)} KiB in ${outDir}\n`);
}

main();
