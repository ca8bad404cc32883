import { loadNativeBuild } from '../native-build';

interface AllocatorAddon {
  tune(arenaMax: number, mmapThreshold: number, trimThreshold: number): boolean;
  trim(): boolean;
}

function isAllocatorAddon(value: unknown): value is AllocatorAddon {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.tune === 'function' && typeof v.trim === 'function';
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

let addon: AllocatorAddon | null | undefined;

function allocator(): AllocatorAddon | null {
  if (addon === undefined) {
    const loaded = loadNativeBuild('allocator.node');
    addon = isAllocatorAddon(loaded) ? loaded : null;
  }
  return addon;
}

/** Tunes malloc for the whole process; call before worker threads start. False when the addon is not built or glibc refused. */
export function tuneAllocator(): boolean {
  return allocator()?.tune(ARENA_MAX, MMAP_THRESHOLD, TRIM_THRESHOLD) ?? false;
}

/** Returns the free pages malloc holds to the system (after a bulk load or an index unloaded). */
export function trimAllocator(): boolean {
  return allocator()?.trim() ?? false;
}
