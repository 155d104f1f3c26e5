import type { Command } from 'commander';
import { ZkError } from '../errors.js';
import { action, corpusRoot } from '../cli/context.js';

export function register(program: Command): void {
  program
    .command('supersede <old>')
    .description('mark OLD as superseded by NEW: both notes stay, searches show only the current one')
    .option('--by <new>', 'the note that replaces OLD (required)')
    .action(action(async (oldRef: string, flags: { by?: string }) => {
      if (!flags.by) throw new ZkError('usage', 'supersede needs --by NEW: the note that replaces OLD');
      const { supersede } = await import('../corpus/supersede.js');
      const { noteInfo } = await import('../corpus/notes.js');
      const r = await supersede(corpusRoot(), oldRef, flags.by);
      const text = r.action === 'noop'
        ? `${r.old.path} was already superseded by ${r.new.path}`
        : `${r.old.path} is superseded by ${r.new.path}`;
      return { json: { action: r.action, old: noteInfo(r.old), new: noteInfo(r.new) }, text };
    }));
}
