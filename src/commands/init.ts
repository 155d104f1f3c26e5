import type { Command } from 'commander';
import type { Invocation } from '../cli/context.js';
import { settings } from '../context.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('init [dir]')
    .description('create a corpus: the root, .zk/ and its .gitignore (safe to run again)')
    .action(cli.action(async (dir?: string) => {
      const { init } = await import('../api/notes.js');
      const { initText } = await import('../views/notes.js');
      const r = init(dir ?? cli.globals.root ?? settings().root() ?? '.');
      return { json: { ...r }, text: initText(r) };
    }));
}
