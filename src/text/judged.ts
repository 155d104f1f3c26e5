import type { SplitCandidatesResult } from '../api/judged.js';
import { countsText } from '../api/commit-message.js';
import type { DrainResult, IntegrateResult, RetainResult, SplitResult, TendWritesResult } from '../api/results.js';
import type { GardenerRow } from '../pipelines/gardener.js';
import type { RetainResultRow } from '../pipelines/retain.js';
import { noteLine } from './notes.js';

export function integrateText(r: IntegrateResult): string {
  const verb = r.action === 'created' ? 'created' : r.action === 'merged' ? 'merged into' : `superseded ${r.target?.path} with`;
  return `${verb} ${r.note.path}`;
}

function rowLine(r: RetainResultRow): string {
  const where =
    r.action === 'merged'
      ? `merged into ${r.note?.path}`
      : r.action === 'superseded'
        ? `${r.note?.path} supersedes ${r.target?.path}`
        : `created ${r.note?.path}`;
  return `${where}  (${r.kind}: ${r.title})`;
}

export function retainText(r: RetainResult): string {
  return r.results.length ? r.results.map(rowLine).join('\n') : r.spooled ? '' : 'nothing worth keeping';
}

export function drainText(d: DrainResult): string {
  return [...d.results.map(rowLine), `drained ${d.drained} item(s) from ${d.files} inbox file(s); ${d.kept} kept for later`].join('\n');
}

export function splitText(r: SplitResult): string {
  if (r.action === 'not_split') return `kept ${r.note.path} whole: the judge did not split it`;
  const children = r.children.map((c) => c.path).join(', ');
  const failed = r.failed.map((f) => `\nnot written (its text stays in the parent): ${f.title}: ${f.error}`).join('');
  return `split ${r.note.path} into ${children}; the original is in ${r.archived}${failed}`;
}

export function splitCandidatesText(r: SplitCandidatesResult): string {
  if (!r.candidates.length) return 'no notes to split: the corpus has no notes yet';
  return r.candidates.map((n) => `${String(n.size).padStart(8)}  ${noteLine(n)}`).join('\n');
}

function gardenRowLine(r: GardenerRow, dry: boolean): string | undefined {
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

export function gardenerText(r: TendWritesResult): string {
  const summary = `tend-writes: ${countsText(r.summary, 'nothing to do')}${r.dry_run ? ' (dry run: nothing written)' : ''}`;
  return [...r.rows.map((row) => gardenRowLine(row, r.dry_run)).filter(Boolean), summary].join('\n');
}
