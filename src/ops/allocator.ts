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
 * to 8 arenas per core, and an mmap threshold that rises to the largest buffer freed so far, after which large
 * buffers are carved out of arenas that never shrink. Two arenas and a fixed 128 KiB threshold (glibc's starting
 * value) took an idle 82k-document server from 1,065 to 904 MB resident (docs/decisions/memory.md).
 */
const ARENA_MAX = 2;
const MMAP_THRESHOLD = 128 * 1024;
const TRIM_THRESHOLD = 128 * 1024;

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
