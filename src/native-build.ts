import fs from 'node:fs';
import path from 'node:path';

/**
 * Loads `native/build/<file>` (made by `make native`), looked for from this module's folder upwards (it runs
 * from src/ under ts-node and from dist/src/ once compiled); `override` is tried first. Undefined when it was not
 * built.
 */
export function loadNativeBuild(file: string, override?: string): unknown {
  const candidates: string[] = override ? [override] : [];
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    candidates.push(path.join(dir, 'native', 'build', file));
    dir = path.dirname(dir);
  }
  const found = candidates.find((f) => fs.existsSync(f));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return found === undefined ? undefined : require(found) as unknown;
}

/**
 * A required addon, loaded on first use: `native/build/<file>`'s exports, checked to hold each of `functions`.
 * Throws how to build it when it is missing or older than the code that calls it.
 */
export function nativeKernel<T extends object>(file: string, functions: ReadonlyArray<keyof T & string>): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      const exports = loadNativeBuild(file);
      const complete = typeof exports === 'object' && exports !== null
        && functions.every((name) => typeof (exports as Record<string, unknown>)[name] === 'function');
      if (!complete) throw new Error(`native/build/${file} is missing or out of date: build it with \`make native\``);
      loaded = exports as T;
    }
    return loaded;
  };
}
