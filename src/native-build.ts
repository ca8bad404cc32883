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
