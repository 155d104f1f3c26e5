import type { Command } from 'commander';
import { action, corpusRoot, intOption, type CommandResult } from '../cli/context.js';
import { countsText } from '../cli/format.js';
import { addLlmOptions } from '../llm/options.js';
import type { LlmFlags } from '../llm/config.js';
import type { GardenOptions, GardenReport, GardenRow } from '../pipelines/gardener.js';

type TendWritesFlags = LlmFlags & Pick<GardenOptions, 'limit' | 'splitSweep' | 'maxFragments' | 'dryRun' | 'source' | 'backend'> & { linkStyle?: string };

function rowLine(r: GardenRow, dry: boolean): string | undefined {
  const would = (done: string, planned: string) => (dry ? `would ${planned}` : done);
  switch (r.action) {
    case 'merged':
      return `${would('merged', 'merge')} ${r.note} into ${r.target}`;
    case 'linked':
      return `${would('linked', 'link')} ${r.note} with ${r.links?.join(', ')}`;
    case 'split':
      return dry ? `would split ${r.note} into: ${r.planned?.join('; ')}` : `split ${r.note} into ${r.children?.join(', ')}`;
    case 'kept':
      return `${would('kept', 'keep')} ${r.note}${r.stage === 'split' ? ' whole' : ''}`;
    case 'failed':
      return `failed ${r.note}: ${r.error}`;
    default:
      return undefined; // skipped notes only count in the summary
  }
}

function summaryLine(r: GardenReport): string {
  return `tend-writes: ${countsText(r.summary, 'nothing to do')}${r.dryRun ? ' (dry run: nothing written)' : ''}`;
}

/** Exit 0 when every note was handled; 3 when the LLM failed on any note; else the code of the first failure. */
function result(r: GardenReport): CommandResult {
  const text = [...r.rows.map((row) => rowLine(row, r.dryRun)).filter(Boolean), summaryLine(r)].join('\n');
  const json = { dry_run: r.dryRun, rows: r.rows, summary: r.summary };
  if (!r.errors.length) return { json, text };
  const first = r.errors.find((e) => e.exitCode === 3) ?? r.errors[0];
  const message = `${r.errors.length} note(s) could not be tended (first: ${first.message}); they are tried again next pass`;
  process.stderr.write(`error: ${message}\n`);
  return { ok: false, exitCode: first.exitCode, json: { ...json, error: { code: first.code, message } }, text };
}

export function register(program: Command): void {
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
  addLlmOptions(cmd).action(action(async (flags: TendWritesFlags) => {
    const root = corpusRoot();
    const { configuredBackend } = await import('../search/index.js');
    const backend = configuredBackend(flags.backend);
    const { requireLlm } = await import('../llm/require.js');
    const llm = requireLlm(flags);
    const { defaultSource } = await import('../corpus/ops.js');
    const linkStyle = (await import('../corpus/related.js')).requireLinkStyle(flags.linkStyle);
    const { tendWrites } = await import('../pipelines/gardener.js');
    const report = await tendWrites(root, {
      llm, backend, limit: flags.limit, splitSweep: flags.splitSweep, maxFragments: flags.maxFragments,
      dryRun: Boolean(flags.dryRun), source: defaultSource(flags.source), linkStyle,
      progress: (line) => process.stderr.write(`tend-writes: ${line}\n`),
    });
    return result(report);
  }));
}
