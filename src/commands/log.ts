import type { Command } from 'commander';
import { intOption, type Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('log [ref]')
    .description(
      'the git history of the corpus, or of one note (following its uuid through renames and its move to .archive/), with its supersession chain and split family',
    )
    .option('--limit <n>', 'at most this many commits, newest first', intOption('--limit'))
    .action(
      cli.action(async (ref: string | undefined, flags: { limit?: number }) => {
        const { log } = await import('../api/history.js');
        const { logText } = await import('../text/history.js');
        const r = await log(cli.root(), ref, { limit: flags.limit });
        return { json: { ...r }, text: logText(r) };
      }),
    );
}
