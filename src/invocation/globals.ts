import { ZkError } from '../errors.js';

/** Options every command understands wherever they stand on the command line. */
export interface GlobalOptions {
  root?: string;
  json: boolean;
}

/**
 * Take `--root DIR` and `--json` out of the arguments wherever they stand (before or after the
 * subcommand, never after `--`), so every command sees them the same way.
 */
export function extractGlobals(argv: string[]): { globals: GlobalOptions; rest: string[] } {
  const globals: GlobalOptions = { json: false };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (a === '--json') globals.json = true;
    else if (a === '--root') {
      if (i + 1 >= argv.length) throw new ZkError('usage', 'option --root needs a directory');
      globals.root = argv[++i];
    } else if (a.startsWith('--root=')) globals.root = a.slice('--root='.length);
    else rest.push(a);
  }
  return { globals, rest };
}
