import type { Command } from 'commander';
import { COMMIT_HELP, collect, textArg, type Invocation } from '../cli/invocation.js';
import { current } from '../context.js';

interface WriteFlags {
  kind?: string;
  source?: string;
  date?: string;
  unique?: boolean;
  choice?: string;
  alternatives?: string[];
  rationale?: string;
  supersedes?: string;
  validFrom?: string;
  validUntil?: string;
  commit?: boolean;
}

export function register(program: Command, cli: Invocation): void {
  program
    .command('write <slug> <title> [body]')
    .description('create a note (refused if the name exists); body from the argument or stdin ("-")')
    .option('--kind <kind>', 'concept | entity_update | decision')
    .option('--source <name>', 'who writes (default: ZK_MEMORY_SOURCE); stored as author')
    .option('--date <YYYY-MM-DD>', 'date of the note (default: today)')
    .option('--unique', 'take the next free name (-2, -3, ...) instead of refusing')
    .option('--choice <text>', 'for a decision: what was chosen')
    .option('--alternatives <text>', 'for a decision: an alternative considered (repeatable)', collect)
    .option('--rationale <text>', 'for a decision: why')
    .option('--supersedes <ref>', 'the new note replaces this one (which is kept, marked superseded)')
    .option('--valid-from <date>', 'what the note says holds true from this day or date-time (default: its date)')
    .option('--valid-until <date>', 'and until this one (default: until a successor holds true)')
    .option('--commit', COMMIT_HELP)
    .action(
      cli.action(async (slug: string, title: string, body: string | undefined, flags: WriteFlags) => {
        const { write } = await import('../api/notes.js');
        const { similarLines, writeText } = await import('../text/notes.js');
        const { commit: _commit, ...options } = flags;
        const r = await write(cli.root(), { slug, title, body: textArg(body), ...options });
        // Said on stderr: stdout stays the new note's path, which scripts read.
        for (const line of similarLines(r)) current().io.stderr(`warning: ${line}\n`);
        return { json: { ...r }, text: writeText(r) };
      }),
    );
}
