import type { Command } from 'commander';
import { noteInfo } from '../corpus/notes.js';
import { listNotes } from '../corpus/ops.js';
import { action, corpusRoot, intOption } from '../cli/context.js';
import { noteLine } from '../cli/format.js';

export function register(program: Command): void {
  program
    .command('list')
    .description('list notes in file-name order')
    .option('--kind <kind>', 'only notes of this kind')
    .option('--recent <n>', 'only the N most recently modified, newest first', intOption('--recent'))
    .option('--history', 'include superseded notes')
    .action(action((flags: { kind?: string; recent?: number; history?: boolean }) => {
      const notes = listNotes(corpusRoot(), flags);
      return { json: { notes: notes.map(noteInfo) }, text: notes.map(noteLine).join('\n') };
    }));
}
