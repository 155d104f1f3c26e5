import type { Command } from 'commander';
import { ZkError } from '../errors.js';
import { COMMIT_HELP, type Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('supersede <old>')
    .description('mark OLD as superseded by NEW: both notes stay, searches show only the current one')
    .option('--by <new>', 'the note that replaces OLD (required)')
    .option('--valid-from <date>', 'NEW holds true from this day or date-time (written on NEW)')
    .option('--commit', COMMIT_HELP)
    .action(
      cli.action(async (oldRef: string, flags: { by?: string; validFrom?: string }) => {
        if (!flags.by) throw new ZkError('usage', 'supersede needs --by NEW: the note that replaces OLD');
        const { supersede } = await import('../api/notes.js');
        const { supersedeText } = await import('../text/notes.js');
        const r = await supersede(cli.root(), oldRef, flags.by, { validFrom: flags.validFrom });
        return { json: { ...r }, text: supersedeText(r) };
      }),
    );
}
