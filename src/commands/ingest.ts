import type { Command } from 'commander';
import { EXIT, ZkError } from '../errors.js';
import { COMMIT_HELP, intOption, textArg, type Invocation } from '../cli/invocation.js';

const api = () => import('../api/ingest.js');
const texts = () => import('../text/ingest.js');

export function register(program: Command, cli: Invocation): void {
  const cmd = program
    .command('ingest')
    .description('study source documents window by window: start | next | accept | skip | status')
    .usage('start|next|accept|skip|status [options]')
    .argument('[subcommand]')
    .action(
      cli.action((sub?: string) => {
        const what = sub === undefined ? 'ingest needs a subcommand' : `unknown ingest subcommand: ${sub}`;
        throw new ZkError('usage', `${what} (start, next, accept, skip or status; see \`ingest --help\`)`);
      }),
    );

  cmd
    .command('start')
    .description('inventory a file or folder (Markdown, text, HTML, DOCX, PDF) and cut it into reading windows')
    .requiredOption('--from <path>', 'a file or a folder (read recursively, in path order)')
    .option('--name <job>', 'the job name (default: the file or folder name)')
    .option('--window-chars <n>', 'the size cap of a window (6000)', intOption('--window-chars'))
    .action(
      cli.action(async (flags: { from: string; name?: string; windowChars?: number }) => {
        const r = await (await api()).ingestStart(cli.root(), flags);
        return { json: { ...r }, text: (await texts()).ingestStartText(r) };
      }),
    );

  cmd
    .command('next')
    .description('claim the next reading window and show it with its context (writes no note)')
    .option('--job <name>', 'the job (default: the only one)')
    .option('--window <id>', 'show and claim this window again')
    .option('--source <name>', 'who reads (default: ZK_MEMORY_SOURCE)')
    .option('--related <n>', 'how many related notes to show (5)', intOption('--related', 0))
    .action(
      cli.action(async (flags: { job?: string; window?: string; source?: string; related?: number }) => {
        const r = await (await api()).ingestNext(cli.root(), flags);
        return { json: { ...r }, text: (await texts()).nextText(r), exitCode: r.window ? EXIT.ok : EXIT.refused };
      }),
    );

  cmd
    .command('accept [body]')
    .description('write the note for the open window (a new note, or --merge REF); body from the argument or stdin ("-")')
    .option('--title <title>', 'title of the new note')
    .option('--slug <slug>', 'slug of the new note (default: from the title)')
    .option('--kind <kind>', 'concept | entity_update | decision')
    .option('--merge <ref>', 'append to this note instead of creating one')
    .option('--keep', 'leave the window open for another note')
    .option('--window <id>', 'the window (default: the only open one)')
    .option('--job <name>', 'the job (default: the only one)')
    .option('--source <name>', 'who writes (default: ZK_MEMORY_SOURCE); stored as author')
    .option('--date <YYYY-MM-DD>', 'date of the note (default: today)')
    .option('--commit', COMMIT_HELP)
    .action(
      cli.action(
        async (
          body: string | undefined,
          flags: {
            title?: string;
            slug?: string;
            kind?: string;
            merge?: string;
            keep?: boolean;
            window?: string;
            job?: string;
            source?: string;
            date?: string;
            commit?: boolean;
          },
        ) => {
          const r = await (await api()).ingestAccept(cli.root(), { ...withoutCommit(flags), body: textArg(body) ?? '' });
          return { json: { ...r }, text: (await texts()).acceptText(r) };
        },
      ),
    );

  cmd
    .command('skip')
    .description('close the open window: it holds nothing worth a note')
    .option('--reason <why>', 'why it was skipped')
    .option('--window <id>', 'the window (default: the only open one)')
    .option('--job <name>', 'the job (default: the only one)')
    .option('--source <name>', 'who reads (default: ZK_MEMORY_SOURCE)')
    .action(
      cli.action(async (flags: { reason?: string; window?: string; job?: string; source?: string }) => {
        const r = await (await api()).ingestSkip(cli.root(), flags);
        return { json: { ...r }, text: (await texts()).skipText(r) };
      }),
    );

  cmd
    .command('status')
    .description('per document: pending, done, skipped, notes; files not read and why; age of the last event')
    .option('--job <name>', 'the job (default: the only one)')
    .action(
      cli.action(async (flags: { job?: string }) => {
        const s = await (await api()).ingestStatus(cli.root(), flags);
        return { json: { ...s }, text: (await texts()).jobStatusText(s) };
      }),
    );
}

/** The flags a call takes, without `--commit` (a setting of the call, not an option of the write). */
function withoutCommit<T extends { commit?: boolean }>(flags: T): Omit<T, 'commit'> {
  const { commit: _commit, ...rest } = flags;
  return rest;
}
