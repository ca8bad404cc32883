import fs from 'node:fs';

/** Where the process's resident memory is: the figures bench:scale splits memory per document by. */
export interface MemoryParts {
  /** Resident set. */
  rss: number;
  /** Anonymous pages (heaps, typed arrays, vector memory, FAISS): what the indexes cost. */
  anonymous: number;
  /** File-backed pages (the embedded store's memory map, code): the kernel may drop them under pressure. */
  fileBacked: number;
  /** The main thread's JS heap in use (ids, facts, second-stage terms). */
  mainHeap: number;
  /** The keyword worker's JS heap in use (term dictionaries, ids, doc numbers). */
  keywordHeap: number;
  /** Typed-array backing stores of every thread (postings, vectors handed between threads). */
  arrayBuffers: number;
}

function kilobytes(text: string, field: string): number | undefined {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return match ? Number(match[1]) * 1024 : undefined;
}

/** Resident memory by kind, from /proc/self/smaps_rollup (Linux); elsewhere everything counts as anonymous. */
export async function residentMemory(): Promise<Pick<MemoryParts, 'rss' | 'anonymous' | 'fileBacked'>> {
  const rss = process.memoryUsage.rss();
  let rollup = '';
  try {
    // The kernel walks every mapping to answer (0.5 ms in a small process, more in a large one): not on the event loop.
    rollup = await fs.promises.readFile('/proc/self/smaps_rollup', 'utf8');
  } catch {
    return { rss, anonymous: rss, fileBacked: 0 };
  }
  const total = kilobytes(rollup, 'Rss') ?? rss;
  const anonymous = kilobytes(rollup, 'Anonymous') ?? total;
  return { rss: total, anonymous, fileBacked: total - anonymous };
}

export async function memoryParts(keywordHeap: () => Promise<number>): Promise<MemoryParts> {
  const usage = process.memoryUsage();
  return { ...await residentMemory(), mainHeap: usage.heapUsed, keywordHeap: await keywordHeap(), arrayBuffers: usage.arrayBuffers };
}

/** The indexes' memory budget and what is held against it (GET /metrics). */
export interface IndexMemoryUse {
  /** KINDRED_INDEX_MEMORY. */
  budget: number;
  /** What the loaded keys' indexes are counted as (bytes per document measured by bench:scale). */
  held: number;
  loadedKeys: number;
  /** Keys unloaded to stay within the budget since start. */
  unloads: number;
}
