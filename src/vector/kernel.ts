import fs from 'node:fs';
import path from 'node:path';

/** Exports of native/build/kernel.wasm (pointers are byte offsets into the shared memory). */
export interface KernelExports {
  kv_dot(a: number, b: number, n: number): number;
  kv_topk(
    base: number, stride: number, begin: number, end: number, query: number,
    alive: number, allow: number, k: number, cap: number, outScores: number, outRows: number,
  ): number;
  kv_topk_multi(
    base: number, stride: number, begin: number, end: number, desc: number, nq: number, alive: number, sizes: number,
  ): void;
}

/** Where the compiled kernel lives: $KINDRED_KERNEL_WASM, else native/build/kernel.wasm of the repo. */
export function kernelPath(): string {
  const fromEnv = process.env.KINDRED_KERNEL_WASM;
  if (fromEnv) return fromEnv;
  // compiled layout: dist/src/vector/kernel.js → the repo root is three levels up
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'native', 'build', 'kernel.wasm');
    if (fs.existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('native/build/kernel.wasm not found: run `make -C native wasm`');
}

const modules = new Map<string, WebAssembly.Module>();

export function kernelModule(file: string = kernelPath()): WebAssembly.Module {
  let mod = modules.get(file);
  if (!mod) {
    mod = new WebAssembly.Module(fs.readFileSync(file));
    modules.set(file, mod);
  }
  return mod;
}

function isKernelExports(value: unknown): value is KernelExports {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return ['kv_dot', 'kv_topk', 'kv_topk_multi'].every((name) => typeof v[name] === 'function');
}

/** Instantiates the kernel over `memory` (a shared WebAssembly.Memory owned by the caller). */
export function instantiateKernel(memory: WebAssembly.Memory, file?: string): KernelExports {
  const instance = new WebAssembly.Instance(kernelModule(file), { env: { memory } });
  if (!isKernelExports(instance.exports)) throw new Error('kernel.wasm lacks the expected exports');
  return instance.exports;
}

/** Bytes the kernel may use at the bottom of memory (its 64 KiB stack); our own regions start above. */
export const KERNEL_RESERVED_BYTES = 128 * 1024;

/** Int32 word (byte offset, above the kernel stack) set to 1 when the owning index is closed. */
export const CLOSED_FLAG_OFFSET = KERNEL_RESERVED_BYTES - 64;
