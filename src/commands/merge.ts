import type { Command } from 'commander';
import { action, corpusRoot, textArg } from '../cli/context.js';

export function register(program: Command): void {
  program
    .command('merge <ref> [fragment]')
    .description('append a dated fragment to a note (append-only); fragment from the argument or stdin ("-")')
    .option('--source <name>', 'who adds it (default: ZK_MEMORY_SOURCE)')
    .action(action(async (ref: string, fragment: string | undefined, flags: { source?: string }) => {
      const { mergeNote } = await import('../corpus/ops.js');
      const { noteInfo } = await import('../corpus/notes.js');
      const root = corpusRoot();
      const note = await mergeNote(root, ref, textArg(fragment) ?? '', { source: flags.source });
      return { json: { action: 'merged', note: noteInfo(note), target: noteInfo(note) }, text: `merged into ${note.path}` };
    }));
}
