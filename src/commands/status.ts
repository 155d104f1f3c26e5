import type { Command } from 'commander';
import type { Invocation } from '../cli/context.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('status')
    .description('corpus figures: notes by kind, superseded, archived, inbox, index freshness, lock and lease holders, last gardener pass')
    .action(cli.action(async () => {
      const { status } = await import('../api/search.js');
      const { statusText } = await import('../views/search.js');
      const s = await status(cli.root());
      return { json: { ...s }, text: statusText(s) };
    }));
}
