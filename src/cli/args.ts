/** Command-line options of the data commands: `--name value` pairs, boolean `--flag`s and positional arguments. */
export interface ParsedArgs {
  options: Map<string, string>;
  flags: Set<string>;
  positional: string[];
}

export class UsageError extends Error {}

/** `flagNames` take no value; every other `--name` takes the next argument. */
export function parseArgs(args: string[], flagNames: readonly string[] = []): ParsedArgs {
  const options = new Map<string, string>();
  const flags = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--') || arg === '--') {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (flagNames.includes(name)) {
      flags.add(name);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) throw new UsageError(`${name} needs a value`);
    options.set(name, value);
  }
  return { options, flags, positional };
}

export function requiredOption(parsed: ParsedArgs, name: string): string {
  const value = parsed.options.get(name);
  if (value === undefined || value === '') throw new UsageError(`${name} is required`);
  return value;
}

export function numberOption(parsed: ParsedArgs, name: string, fallback: number, check: (n: number) => boolean, what: string): number {
  const raw = parsed.options.get(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || !check(n)) throw new UsageError(`${name} needs ${what}, got '${raw}'`);
  return n;
}

/** The server the data commands talk to: --url, else http://127.0.0.1:$PORT (default 8080). */
export function serverUrl(parsed: ParsedArgs, env: NodeJS.ProcessEnv = process.env): string {
  const given = parsed.options.get('--url');
  if (given) return given.replace(/\/+$/, '');
  return `http://127.0.0.1:${env.PORT || '8080'}`;
}

/**
 * Runs a command body with the CLI's usage conventions: `--help` prints the usage (exit 0); a
 * UsageError prints its reason and the usage (exit 2).
 */
export async function withUsage(args: string[], usage: string, body: () => Promise<number>): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  try {
    return await body();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${usage}\n`);
    return 2;
  }
}
