import { demoCommand } from './demo';
import { evalCommand } from './eval';
import { exportCommand } from './export';
import { importCommand } from './import-command';

/** The commands that talk to a running server over HTTP (import, export, eval, demo), by name. */
export const dataCommands: Record<string, (args: string[]) => Promise<number>> = {
  import: importCommand,
  export: exportCommand,
  eval: evalCommand,
  demo: demoCommand,
};

export const DATA_USAGE = `  import --key KEY [--url URL] [--type TYPE] FILE...
                              import JSONL/CSV documents, tags, taggings, users or preferences (resumable; --help for fields)
  export --key KEY [--url URL] [--out DIR]
                              write the key's data as JSONL files that import reads back
  eval --key KEY [--url URL] [--k 10] [--holdout 0.2] [--seed N] [--json]
                              precision@k / recall@k of the content and hybrid recommenders on the key's own data
  demo --key KEY [--url URL]  load the Debian packages demo data set and print example requests
  (import, export, eval and demo talk to a running server: --url, default http://127.0.0.1:$PORT)`;
