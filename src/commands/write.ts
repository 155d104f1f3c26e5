import type { Command } from 'commander';
import { action, collect, corpusRoot, textArg } from '../cli/context.js';

interface WriteFlags {
  kind?: string;
  source?: string;
  date?: string;
  unique?: boolean;
  choice?: string;
  alternatives?: string[];
  rationale?: string;
  supersedes?: string;
}

export function register(program: Command): void {
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
    .action(action(async (slug: string, title: string, body: string | undefined, flags: WriteFlags) => {
      const { writeNote } = await import('../corpus/ops.js');
      const { noteInfo } = await import('../corpus/notes.js');
      const root = corpusRoot();
      const { supersedes, ...rest } = flags;
      const options = { slug, title, body: textArg(body), ...rest };
      if (supersedes) {
        const { writeSuperseding } = await import('../corpus/supersede.js');
        const r = await writeSuperseding(root, options, supersedes);
        return {
          json: { action: 'superseded', note: noteInfo(r.new), target: noteInfo(r.old) },
          text: `${r.new.path} (supersedes ${r.old.path})`,
        };
      }
      const note = writeNote(root, options);
      return { json: { action: 'created', note: noteInfo(note) }, text: note.path };
    }));
}
