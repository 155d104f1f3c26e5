import type { Command } from 'commander';
import { EXIT } from '../errors.js';
import { current } from '../context.js';
import { COMMIT_HELP, type Invocation } from '../cli/invocation.js';

/** An import of at least this many items says on a terminal how far it is. */
const LONG_IMPORT = 100;
/** The progress line is redrawn at most this often. */
const REDRAW_MS = 100;

/** A progress line on stderr, redrawn in place, when stderr is a terminal and the import is long. */
function progressLine(json: boolean): ((done: number, total: number) => void) | undefined {
  if (json || !process.stderr.isTTY) return undefined;
  let drawn = -Infinity;
  return (done, total) => {
    if (total < LONG_IMPORT || (done < total && performance.now() - drawn < REDRAW_MS)) return;
    drawn = performance.now();
    current().io.stderr(`\rimporting: ${done}/${total} items${done === total ? '\n' : ''}`);
  };
}

export function register(program: Command, cli: Invocation): void {
  program
    .command('import <format> <path>')
    .description(
      'bring in memory kept elsewhere: jsonl, memory-json, mem0, claude-code, codex, chatgpt, claude, obsidian, basic-memory (docs/import-export.md); re-importing skips what came in before',
    )
    .option('--dry-run', 'report what would happen; write nothing')
    .option('--commit', COMMIT_HELP)
    .option('--verbatim', 'chatgpt, claude: each conversation one note of kind conversation, not an input left in the inbox for an LLM')
    .action(
      cli.action(async (format: string, source: string, flags: { dryRun?: boolean; verbatim?: boolean; commit?: boolean }) => {
        const { importMemory } = await import('../api/import.js');
        const { failureLines, importText } = await import('../text/import.js');
        const r = await importMemory(cli.root(), {
          format,
          path: source,
          dryRun: flags.dryRun,
          verbatim: flags.verbatim,
          progress: progressLine(cli.globals.json),
        });
        if (!cli.globals.json) for (const line of failureLines(r)) current().io.stderr(`error: ${line}\n`);
        return { ok: r.failed.length === 0, exitCode: r.failed.length ? EXIT.refused : EXIT.ok, json: { ...r }, text: importText(r) };
      }),
    );
}
