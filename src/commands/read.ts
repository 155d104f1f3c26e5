import type { Command } from 'commander';
import type { Invocation } from '../cli/invocation.js';
import { ZkError } from '../errors.js';
import { requireMoment } from '../api/vocabulary.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('read <ref>')
    .description('print a note and where its links lead (ref: uuid, uuid prefix, stem or file name)')
    .option('--no-links', 'print the note only')
    .option('--as-of <date>', 'the note as it stood at the end of this day (YYYY-MM-DD) or at this moment', (v: string) => requireMoment(v, '--as-of'))
    .option('--timeline', "the beliefs about the note's subject, oldest first: the notes it replaced and those that replaced it")
    .action(
      cli.action(async (ref: string, flags: { links: boolean; asOf?: string; timeline?: boolean }) => {
        const { read, timeline } = await import('../api/read.js');
        const { readText, timelineText } = await import('../text/notes.js');
        if (flags.timeline) {
          if (flags.asOf !== undefined) throw new ZkError('usage', '--timeline shows every belief with its dates: it takes no --as-of');
          const t = timeline(cli.root(), ref);
          return { json: { ...t }, text: timelineText(t) };
        }
        const r = read(cli.root(), ref, { links: flags.links, asOf: flags.asOf });
        return { json: { ...r }, text: readText(r, { links: flags.links }) };
      }),
    );
}
