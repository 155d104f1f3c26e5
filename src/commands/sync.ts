import type { Command } from 'commander';
import type { Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('sync')
    .description('share the corpus through git: commit, fetch, merge with the note-aware rules, push (docs/hosts.md)')
    .action(
      cli.action(async () => {
        const { sync } = await import('../api/sync.js');
        const { syncText } = await import('../text/sync.js');
        const r = await sync(cli.root());
        return { json: { ...r }, text: syncText(r) };
      }),
    );
}
