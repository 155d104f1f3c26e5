import type { AcceptResult } from '../ingest/accept.js';
import type { NextResult } from '../ingest/next.js';
import type { JobStatus } from '../ingest/status.js';
import type { IngestStartResult } from '../api/ingest.js';
import { hint } from '../hints.js';

function ago(seconds: number): string {
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86400)}d`;
}

export function nextText(r: NextResult): string {
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
  if (r.held) lines.push(`you still hold this window from ${hint('heldWindow')}: accept or skip it to move on`);
  lines.push(rule, w.text.replace(/\s+$/, ''), rule);
  const earlier = r.captured_count > r.captured.length ? ` (the last ${r.captured.length} of ${r.captured_count})` : '';
  lines.push(r.captured_count ? `captured from this document${earlier}:` : 'captured from this document: none yet');
  for (const c of r.captured) lines.push(`  ${c.path}  ${c.title}  [${c.window}${c.action === 'merged' ? ', merged' : ''}]`);
  lines.push(r.related.length ? 'related notes:' : `related notes: none${r.related_error ? ` (${r.related_error})` : ''}`);
  for (const h of r.related) lines.push(`  ${h.path}  ${h.title}`);
  lines.push(`${r.remaining} window(s) left in the job. Write the thought, then:`, `  ${hint('acceptWindow', w.id)}`, `  ${hint('skipWindow', w.id)}`);
  return lines.join('\n');
}

export function jobStatusText(s: JobStatus): string {
  const pad = (v: number | string, n: number) => String(v).padStart(n);
  const e = s.last_event;
  const lines = [
    `job ${s.job} from ${s.from} (windows up to ${s.window_chars} chars)`,
    `last event: ${e ? `${e.event}${e.window ? ` ${e.window}` : ''}, ${ago(e.age_seconds)} ago` : 'none'}`,
    `  pending  done  skipped  notes  document`,
    ...s.documents.map(
      (d) => `  ${pad(d.pending, 7)}  ${pad(d.done, 4)}  ${pad(d.skipped, 7)}  ${pad(d.notes, 5)}  ${d.path} (${d.kind}, ${d.windows} windows)`,
    ),
    `total: ${s.totals.documents} document(s), ${s.totals.windows} windows: ${s.totals.pending} pending (${s.totals.claimed} claimed), ` +
      `${s.totals.done} done, ${s.totals.skipped} skipped, ${s.totals.notes} note(s)`,
  ];
  for (const c of s.claims) lines.push(`claimed: ${c.window}${c.owner ? ` by ${c.owner}` : ''} until ${c.expires}`);
  if (s.unsupported.length) lines.push('not read:', ...s.unsupported.map((u) => `  ${u.path}: ${u.reason}`));
  return lines.join('\n');
}

export function ingestStartText(r: IngestStartResult): string {
  const head = r.action === 'created' ? `started ingest job ${r.job}` : `ingest job ${r.job} already exists with these sources: resuming`;
  return `${head}\n${jobStatusText(r)}`;
}

export function acceptText(r: AcceptResult): string {
  const verb = r.repeated ? `already captured as ${r.note.path}` : `${r.action} ${r.note.path}`;
  return `${verb} from window ${r.window} (window ${r.window_status})`;
}

export function skipText(r: { window: string; window_status: string }): string {
  return `window ${r.window} ${r.window_status}`;
}
