import type { Command } from 'commander';
import { current } from '../context.js';
import { addCommitOption, addLlmOptions, intOption, type Invocation } from '../cli/invocation.js';
import type { TendWritesRequest } from '../api/judged.js';

export function register(program: Command, cli: Invocation): void {
  const cmd = program
    .command('tend-writes')
    .description('the gardener: fold duplicates, link related notes, and (with --split-sweep) split the largest notes')
    .option('--limit <n>', 'how many changed notes to tend, newest first (default 20)', intOption('--limit'))
    .option('--split-sweep <n>', 'first judge the N largest notes for a split (default 0)', intOption('--split-sweep', 0))
    .option('--max-fragments <n>', 'children at most per split (default 4)', intOption('--max-fragments', 2))
    .option('--dry-run', 'print the plan; write nothing at all')
    .option('--source <name>', 'who the gardener writes as (default: ZK_MEMORY_SOURCE)')
    .option('--backend <name>', 'search backend used to find duplicates and related notes')
    .option('--link-style <style>', 'how new links are written: markdown or wikilink (default: ZK_MEMORY_LINK_STYLE, else markdown)');
  addCommitOption(addLlmOptions(cmd)).action(
    cli.action(async (flags: TendWritesRequest) => {
      const { tendWrites } = await import('../api/judged.js');
      const { gardenerText } = await import('../text/judged.js');
      const { limit, splitSweep, maxFragments, dryRun, source, backend, linkStyle } = flags;
      const progress = (line: string) => current().io.stderr(`tend-writes: ${line}\n`);
      const r = await tendWrites(cli.root(), { limit, splitSweep, maxFragments, dryRun, source, backend, linkStyle, progress });
      if (!r.error) return { json: { ...r }, text: gardenerText(r) };
      const { exit, ...error } = r.error;
      return { ok: false, exitCode: exit, json: { ...r, error }, text: gardenerText(r), error: error.message };
    }),
  );
}
