import type { Command } from 'commander';
import { ZkError } from '../errors.js';
import { defaultSource } from '../corpus/source.js';
import { action, corpusRoot, intOption, textArg } from '../cli/context.js';
import type { JobStatus } from '../ingest/status.js';
import type { NextResult } from '../ingest/next.js';

const ingest = () => import('../ingest/index.js');

/** Who is reading: --source, else ZK_MEMORY_SOURCE; tells claims apart when several readers share a job. */
const owner = (source?: string) => defaultSource(source) ?? '';

function ago(seconds: number): string {
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86400)}d`;
}

function nextText(r: NextResult): string {
  const w = r.window;
  if (!w) {
    return r.done
      ? `done: every window of job ${r.job} is done or skipped; nothing is left to read`
      : `nothing free in job ${r.job}: the ${r.remaining} remaining window(s) are claimed by other readers; try again when they are closed or their claims run out`;
  }
  const rule = '-'.repeat(72);
  const path = (headings: string[]) => headings.join(' > ') || '(no heading)';
  const lines = [
    `job ${r.job} · document ${w.document.index} of ${w.document.count}: ${w.document.path} (${w.document.kind})`,
    `window ${w.id} · ${w.index} of ${w.count} · ${path(w.headings)}`,
  ];
  if (w.sections.length > 1) lines.push(`sections: ${w.sections.map((s) => path(s.headings)).join(' | ')}`);
  if (r.held) lines.push('you still hold this window from an earlier `next`: accept or skip it to move on');
  lines.push(rule, w.text.replace(/\s+$/, ''), rule);
  const earlier = r.captured_count > r.captured.length ? ` (the last ${r.captured.length} of ${r.captured_count})` : '';
  lines.push(r.captured_count ? `captured from this document${earlier}:` : 'captured from this document: none yet');
  for (const c of r.captured) lines.push(`  ${c.path}  ${c.title}  [${c.window}${c.action === 'merged' ? ', merged' : ''}]`);
  lines.push(r.related.length ? 'related notes:' : `related notes: none${r.related_error ? ` (${r.related_error})` : ''}`);
  for (const h of r.related) lines.push(`  ${h.path}  ${h.title}`);
  lines.push(
    `${r.remaining} window(s) left in the job. Write the thought, then:`,
    `  zk-memory ingest accept --window ${w.id} --title "TITLE" "BODY"   (--merge REF to append, --keep for another note)`,
    `  zk-memory ingest skip --window ${w.id} [--reason WHY]`,
  );
  return lines.join('\n');
}

function statusText(s: JobStatus): string {
  const pad = (v: number | string, n: number) => String(v).padStart(n);
  const e = s.last_event;
  const lines = [
    `job ${s.job} from ${s.from} (windows up to ${s.window_chars} chars)`,
    `last event: ${e ? `${e.event}${e.window ? ` ${e.window}` : ''}, ${ago(e.age_seconds)} ago` : 'none'}`,
    `  pending  done  skipped  notes  document`,
    ...s.documents.map((d) => `  ${pad(d.pending, 7)}  ${pad(d.done, 4)}  ${pad(d.skipped, 7)}  ${pad(d.notes, 5)}  ${d.path} (${d.kind}, ${d.windows} windows)`),
    `total: ${s.totals.documents} document(s), ${s.totals.windows} windows: ${s.totals.pending} pending (${s.totals.claimed} claimed), ` +
      `${s.totals.done} done, ${s.totals.skipped} skipped, ${s.totals.notes} note(s)`,
  ];
  for (const c of s.claims) lines.push(`claimed: ${c.window}${c.owner ? ` by ${c.owner}` : ''} until ${c.expires}`);
  if (s.unsupported.length) lines.push('not read:', ...s.unsupported.map((u) => `  ${u.path}: ${u.reason}`));
  return lines.join('\n');
}

export function register(program: Command): void {
  const cmd = program
    .command('ingest')
    .description('study source documents window by window: start | next | accept | skip | status')
    .usage('start|next|accept|skip|status [options]')
    .argument('[subcommand]')
    .action(action((sub?: string) => {
      const what = sub === undefined ? 'ingest needs a subcommand' : `unknown ingest subcommand: ${sub}`;
      throw new ZkError('usage', `${what} (start, next, accept, skip or status; see \`ingest --help\`)`);
    }));

  cmd
    .command('start')
    .description('inventory a file or folder (Markdown, text, HTML, DOCX, PDF) and cut it into reading windows')
    .requiredOption('--from <path>', 'a file or a folder (read recursively, in path order)')
    .option('--name <job>', 'the job name (default: the file or folder name)')
    .option('--window-chars <n>', 'the size cap of a window (6000)', intOption('--window-chars'))
    .action(action(async (flags: { from: string; name?: string; windowChars?: number }) => {
      const { startJob, jobStatus } = await ingest();
      const root = corpusRoot();
      const r = await startJob(root, flags);
      const status = await jobStatus(root, r.manifest.name);
      const head = r.action === 'created' ? `started ingest job ${status.job}` : `ingest job ${status.job} already exists with these sources: resuming`;
      return { json: { action: r.action, ...status }, text: `${head}\n${statusText(status)}` };
    }));

  cmd
    .command('next')
    .description('claim the next reading window and show it with its context (writes no note)')
    .option('--job <name>', 'the job (default: the only one)')
    .option('--window <id>', 'show and claim this window again')
    .option('--source <name>', 'who reads (default: ZK_MEMORY_SOURCE)')
    .option('--related <n>', 'how many related notes to show (5)', intOption('--related', 0))
    .action(action(async (flags: { job?: string; window?: string; source?: string; related?: number }) => {
      const { nextWindow } = await ingest();
      const r = await nextWindow(corpusRoot(), { job: flags.job, window: flags.window, owner: owner(flags.source), related: flags.related });
      return { json: { ...r }, text: nextText(r), exitCode: r.window ? 0 : 1 };
    }));

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
    .action(action(async (body: string | undefined, flags: { title?: string; slug?: string; kind?: string; merge?: string; keep?: boolean; window?: string; job?: string; source?: string; date?: string }) => {
      const { acceptWindow } = await ingest();
      const r = await acceptWindow(corpusRoot(), { ...flags, owner: owner(flags.source), body: textArg(body) ?? '' });
      const verb = r.repeated ? `already captured as ${r.note.path}` : `${r.action} ${r.note.path}`;
      return { json: { ...r }, text: `${verb} from window ${r.window} (window ${r.window_status})` };
    }));

  cmd
    .command('skip')
    .description('close the open window: it holds nothing worth a note')
    .option('--reason <why>', 'why it was skipped')
    .option('--window <id>', 'the window (default: the only open one)')
    .option('--job <name>', 'the job (default: the only one)')
    .option('--source <name>', 'who reads (default: ZK_MEMORY_SOURCE)')
    .action(action(async (flags: { reason?: string; window?: string; job?: string; source?: string }) => {
      const { skipWindow } = await ingest();
      const r = await skipWindow(corpusRoot(), { ...flags, owner: owner(flags.source) });
      return { json: r, text: `window ${r.window} ${r.window_status}` };
    }));

  cmd
    .command('status')
    .description('per document: pending, done, skipped, notes; files not read and why; age of the last event')
    .option('--job <name>', 'the job (default: the only one)')
    .action(action(async (flags: { job?: string }) => {
      const { jobStatus } = await ingest();
      const s = await jobStatus(corpusRoot(), flags.job);
      return { json: { ...s }, text: statusText(s) };
    }));
}
