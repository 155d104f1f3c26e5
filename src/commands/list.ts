import type { Command } from 'commander';
import { intOption, type Invocation } from '../cli/invocation.js';
import { requireMoment } from '../api/vocabulary.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('list')
    .description('list notes in file-name order')
    .option('--kind <kind>', 'only notes of this kind')
    .option('--recent <n>', 'only the N most recently modified, newest first', intOption('--recent'))
    .option('--history', 'include superseded notes')
    .option('--as-of <date>', 'the notes held at the end of this day (YYYY-MM-DD) or at this moment, as they stood then', (v: string) =>
      requireMoment(v, '--as-of'),
    )
    .option('--limit <n>', 'at most N notes', intOption('--limit'))
    .option('--offset <n>', 'skip the first N notes', intOption('--offset', 0))
    .action(
      cli.action(async (flags: { kind?: string; recent?: number; history?: boolean; asOf?: string; limit?: number; offset?: number }) => {
        const { list } = await import('../api/notes.js');
        const { listText } = await import('../text/notes.js');
        const r = list(cli.root(), flags);
        return { json: { ...r }, text: listText(r) };
      }),
    );
}
