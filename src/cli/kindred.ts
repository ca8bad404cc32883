import { loadConfig } from '../config';
import { newKey, registerKey, revokeKey } from '../services/keys';
import { openStorage } from '../storage';
import { train } from './train';
import { dataCommands, DATA_USAGE } from './data-commands';

const USAGE = `usage: kindred <command>

  keys create [--name NAME]   create a subscription key (a new, empty data set) and print it
  keys list                   list keys (name, tenant, created, revoked; never the key itself)
  keys revoke KEY             revoke a key; its requests are refused within 5 seconds
  train --key KEY [--factors F] [--iterations N] [--alpha A] [--regularization L]
                              train the key's hybrid model from its preferences; servers pick it up within seconds
${DATA_USAGE}

Storage is chosen as for the server: MONGODB_URI when set, else KINDRED_DATA_DIR (default ./data).`;

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

async function keys(args: string[]): Promise<number> {
  const storage = await openStorage(loadConfig());
  try {
    switch (args[0]) {
      case 'create': {
        const key = newKey();
        const record = await registerKey(storage, key, option(args, '--name') ?? '');
        process.stdout.write(`${key}\n`);
        process.stderr.write(`created key for tenant ${record.tenant}; it is shown only once\n`);
        return 0;
      }
      case 'list':
        for (const k of await storage.keys.list()) {
          process.stdout.write(`${k.tenant}\t${k.name || '-'}\t${k.created_at}\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}\n`);
        }
        return 0;
      case 'revoke': {
        if (!args[1]) break;
        const revoked = await revokeKey(storage, args[1]);
        if (!revoked) {
          process.stderr.write('no such key\n');
          return 1;
        }
        process.stdout.write(`revoked key of tenant ${revoked.tenant}\n`);
        return 0;
      }
    }
    process.stderr.write(`${USAGE}\n`);
    return 2;
  } finally {
    await storage.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'keys') return keys(rest);
  if (command === 'train') return train(rest);
  if (command !== undefined && Object.hasOwn(dataCommands, command)) return dataCommands[command](rest);
  process.stderr.write(`${USAGE}\n`);
  return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
}

/** Entry point of the `kindred` executable. */
export function run(argv: string[] = process.argv.slice(2)): void {
  main(argv).then((code) => process.exit(code), (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

if (require.main === module) run();
