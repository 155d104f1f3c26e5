import type { Command } from 'commander';
import type { Invocation } from '../cli/context.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('read <ref>')
    .description('print a note and where its links lead (ref: uuid, uuid prefix, stem or file name)')
    .option('--no-links', 'print the note only')
    .action(cli.action(async (ref: string, flags: { links: boolean }) => {
      const { read } = await import('../api/read.js');
      const { readText } = await import('../views/notes.js');
      const r = read(cli.root(), ref, { links: flags.links });
      return { json: { ...r }, text: readText(r, { links: flags.links }) };
    }));
}
