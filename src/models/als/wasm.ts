import fs from 'node:fs';
import path from 'node:path';

/** native/als/build/als.wasm: the SIMD CG row solver (build with `make -C native/als`). */
export interface AlsWasmExports {
  als_solve(
    target: number,
    fixed: number,
    indptr: number,
    indices: number,
    conf: number,
    lambdas: number,
    k: number,
    gram: number,
    start: number,
    end: number,
    cgSteps: number,
    scratch: number,
  ): void;
}

/** Bytes at the bottom of the memory left to the module (its 64 KiB stack and data). */
const RESERVED_BYTES = 128 * 1024;
const PAGE = 65536;

/** $KINDRED_ALS_WASM, else native/als/build/als.wasm found from this file up to the repository root. */
export function alsWasmPath(): string | undefined {
  const fromEnv = process.env.KINDRED_ALS_WASM;
  if (fromEnv) return fs.existsSync(fromEnv) ? fromEnv : undefined;
  let dir = __dirname;
  for (let up = 0; up < 6; up++) {
    const candidate = path.join(dir, 'native', 'als', 'build', 'als.wasm');
    if (fs.existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return undefined;
}

let cachedModule: WebAssembly.Module | null | undefined;

/** The compiled module, or null when the .wasm was not built (the JS kernels are used then). */
export function alsWasmModule(): WebAssembly.Module | null {
  if (cachedModule === undefined) {
    const file = alsWasmPath();
    cachedModule = file ? new WebAssembly.Module(fs.readFileSync(file)) : null;
  }
  return cachedModule;
}

function isExports(v: unknown): v is AlsWasmExports {
  return typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>).als_solve === 'function';
}

/** Instantiates the solver over a shared memory (cheap: the module is compiled once per thread). */
export function instantiateAls(memory: WebAssembly.Memory): AlsWasmExports {
  const mod = alsWasmModule();
  if (!mod) throw new Error('native/als/build/als.wasm not found: run `make -C native/als`');
  const instance = new WebAssembly.Instance(mod, { env: { memory } });
  if (!isExports(instance.exports)) throw new Error('als.wasm lacks als_solve');
  return instance.exports;
}

/** A bump allocator over one shared WebAssembly.Memory: every training array lives here, visible to all workers. */
export class WasmArena {
  readonly memory: WebAssembly.Memory;
  private next = RESERVED_BYTES;

  constructor(bytes: number) {
    const pages = Math.ceil((RESERVED_BYTES + bytes + 4096) / PAGE);
    if (pages > 65536) throw new RangeError(`ALS training needs ${bytes} bytes, over the 4 GiB wasm32 limit`);
    this.memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  }

  private take(bytes: number): number {
    const at = this.next;
    this.next = (at + bytes + 15) & ~15;
    if (this.next > this.memory.buffer.byteLength) throw new RangeError('WasmArena exhausted');
    return at;
  }

  f32(length: number): Float32Array {
    return new Float32Array(this.memory.buffer, this.take(length * 4), length);
  }

  i32(length: number): Int32Array {
    return new Int32Array(this.memory.buffer, this.take(length * 4), length);
  }

  /** Bytes an array of `length` 4-byte elements takes, rounded as `take` rounds. */
  static size(length: number): number {
    return (length * 4 + 15) & ~15;
  }
}
