import { ZkError } from '../errors.js';

/** Options every command understands wherever they stand on the command line. */
export interface GlobalOptions {
  root?: string;
  /** The corpora named with `--corpus` (docs/configuration.md#corpora-by-name): one, but for `token create`. */
  corpora?: string[];
  json: boolean;
}

/**
 * Take `--root DIR`, `--corpus NAME` (repeatable, for `token create`) and `--json` out of the
 * arguments wherever they stand (before or after the subcommand, never after `--`), so every
 * command sees them the same way. `--root` and `--corpus` both name the corpus: one of them.
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
    else if (a === '--corpus' || a.startsWith('--corpus=')) {
      if (a === '--corpus' && i + 1 >= argv.length) throw new ZkError('usage', 'option --corpus needs a name (zk-memory corpus list)');
      (globals.corpora ??= []).push(a === '--corpus' ? argv[++i] : a.slice('--corpus='.length));
    } else rest.push(a);
  }
  if (globals.root !== undefined && globals.corpora) throw new ZkError('usage', '--root and --corpus both name the corpus: give one of them');
  return { globals, rest };
}
