import fs from 'node:fs';
import { loadNativeBuild } from '../native-build';

/** native/build/memory.node: hands memory back to the system. */
interface MemoryAddon {
  tune(arenaMax: number, mmapThreshold: number, trimThreshold: number): boolean;
  trim(): boolean;
  releaseMapped(path: string): number;
}

function isMemoryAddon(value: unknown): value is MemoryAddon {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.tune === 'function' && typeof v.trim === 'function' && typeof v.releaseMapped === 'function';
}

/**
 * glibc's defaults fit short programs, not a server whose threads allocate and free large buffers for hours: up
 * to 8 arenas per core, and an mmap threshold that rises to the largest buffer freed so far (up to 32 MB), after
 * which large buffers are carved out of arenas that never shrink. Two arenas and a fixed 1 MiB threshold took an
 * idle 82k-document server from 9.1–9.6 to 6.6–7.2 KB of RSS per document (bench:scale). A 128 KiB threshold
 * saved a little more but made each similar query's buffers (candidate vectors and terms, ~0.7 MB, copied to a
 * pool thread) mmapped and unmapped every time: p50 +35 % (docs/decisions/memory.md).
 */
const ARENA_MAX = 2;
const MMAP_THRESHOLD = 1024 * 1024;
const TRIM_THRESHOLD = 1024 * 1024;

let addon: MemoryAddon | null | undefined;

function memoryAddon(): MemoryAddon | null {
  if (addon === undefined) {
    const loaded = loadNativeBuild('memory.node');
    addon = isMemoryAddon(loaded) ? loaded : null;
  }
  return addon;
}

/** Tunes malloc for the whole process; call before worker threads start. False when the addon is not built or glibc refused. */
export function tuneAllocator(): boolean {
  return memoryAddon()?.tune(ARENA_MAX, MMAP_THRESHOLD, TRIM_THRESHOLD) ?? false;
}

/** Returns the free pages malloc holds to the system (after a bulk load or an index unloaded). */
export function trimAllocator(): boolean {
  return memoryAddon()?.trim() ?? false;
}

/**
 * Unmaps this process's resident pages of a file it maps shared (the embedded store): they stay in the kernel's
 * page cache, and a later read maps back only what it touches. Resolves to the number of mappings released (0
 * when the file is not mapped or the addon is not built).
 */
export function releaseMappedFile(file: string): number {
  return Math.max(0, memoryAddon()?.releaseMapped(fs.realpathSync(file)) ?? 0);
}
