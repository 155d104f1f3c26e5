import type { IndexResult, IndexStatus, SearchResult, StatusResult } from '../api/search.js';
import type { VectorReport, VectorStatus } from '../search/vector.js';
import { countsText } from '../api/commit-message.js';
import { hint } from '../hints.js';

/** How much of a query an answer repeats: enough to recognise it, never a whole pasted document. */
const QUERY_SHOWN = 200;

/** `text`, cut to its first `max` characters (never inside one) with `…` when it is longer. */
function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : text;
}

export function searchText(r: SearchResult): string {
  if (!r.hits.length) {
    const other = r.backend === 'rg' ? 'fts' : 'rg';
    return `no notes match ${JSON.stringify(clip(r.query, QUERY_SHOWN))} (${hint('noMatch', other)})`;
  }
  return r.hits.map((h) => `${h.path}  ${h.title}${h.superseded_by ? ' (superseded)' : ''}  (updated ${h.updated})\n    ${h.snippet}`).join('\n');
}

function vectorStatusLine(v: VectorStatus | null): string {
  if (!v) return 'vectors: none (made by `index`, the resident server in the background, or the first vector or hybrid search with an embedding endpoint)';
  const pending = v.pending ? `, ${v.pending} pending` : '';
  const count = v.total !== null && v.upToDate !== null ? `${v.upToDate} of ${v.total} notes embedded` : `${v.notes} notes embedded`;
  return `vectors: ${count} with model ${JSON.stringify(v.model)}, dimension ${v.dimension}${pending} (refreshed ${v.refreshedAt})`;
}

function vectorReportLine(v: VectorReport): string {
  const what = v.rebuilt ? 're-embedded' : 'embedded';
  return `vectors: ${v.embedded} ${what}, ${v.removed} removed (${v.notes} notes, model ${JSON.stringify(v.model)}, dimension ${v.dimension ?? '-'})`;
}

export function indexStatusText(s: IndexStatus): string {
  const text = !s.exists
    ? `index: none yet (${s.notes} notes); it is built on the first search`
    : s.fresh
      ? `index: up to date, ${s.notes} notes (refreshed ${s.refreshedAt})`
      : `index: stale, ${s.pending} of ${s.notes} notes changed since ${s.refreshedAt}`;
  return `${text}\nindex location: ${s.location.dir} (${s.location.why})\n${vectorStatusLine(s.vectors)}`;
}

export function indexText(r: IndexResult): string {
  const text = r.rebuilt
    ? `index rebuilt: ${r.notes} notes`
    : `index refreshed: ${r.added} added, ${r.changed} changed, ${r.removed} removed (${r.notes} notes)`;
  return 'vectors' in r && r.vectors ? `${text}\n${vectorReportLine(r.vectors as VectorReport)}` : text;
}

export function statusText(s: StatusResult): string {
  const kinds = Object.entries(s.byKind)
    .filter(([, n]) => n)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return [
    `root: ${s.root}`,
    `notes: ${s.notes}${kinds ? ` (${kinds})` : ''}`,
    `superseded: ${s.superseded}`,
    `archived: ${s.archived}`,
    `inbox: ${s.inbox}`,
    indexStatusText(s.index),
    `lock: ${s.lock.held ? `held${s.lock.holder ? ` by ${s.lock.holder.host} pid ${s.lock.holder.pid}` : ''}` : 'free'}`,
    `lease: ${s.lease ? `${s.lease.host} pid ${s.lease.pid} (${s.lease.purpose}) until ${s.lease.expires}` : 'free'}`,
    `gardener: ${s.gardener ? `last pass finished ${s.gardener.finished} on ${s.gardener.host} (${countsText(s.gardener.summary, 'nothing to do')})` : 'never run'}`,
    `git: ${s.git.work_tree ? `${s.git.uncommitted ? `${s.git.uncommitted} uncommitted change(s) to notes, .archive/ or the trace` : 'all notes committed'}` : `not versioned (${s.git.reason})`}`,
  ].join('\n');
}
