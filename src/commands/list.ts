import type { Command } from 'commander';
import { action, corpusRoot, intOption } from '../cli/context.js';
import { noteLine } from '../cli/format.js';

export function register(program: Command): void {
  program
    .command('list')
    .description('list notes in file-name order')
    .option('--kind <kind>', 'only notes of this kind')
    .option('--recent <n>', 'only the N most recently modified, newest first', intOption('--recent'))
    .option('--history', 'include superseded notes')
    .action(action(async (flags: { kind?: string; recent?: number; history?: boolean }) => {
      const { listNotes } = await import('../corpus/ops.js');
      const { noteInfo } = await import('../corpus/notes.js');
      const notes = listNotes(corpusRoot(), flags);
      return { json: { notes: notes.map(noteInfo) }, text: notes.map(noteLine).join('\n') };
    }));
}
