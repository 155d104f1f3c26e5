import type { Command } from 'commander';
import { COMMIT_HELP, type Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('archive <ref>')
    .description('retract a note: move it to .archive/ (never deleted; move it back to undo)')
    .option('--reason <why>', 'why it is retracted (kept in the trace)')
    .option('--commit', COMMIT_HELP)
    .action(
      cli.action(async (ref: string, flags: { reason?: string }) => {
        const { archive } = await import('../api/corpus.js');
        const { archiveText } = await import('../text/notes.js');
        const r = await archive(cli.root(), ref, flags);
        return { json: { ...r }, text: archiveText(r) };
      }),
    );
}
