import type { NoteInfo } from '../corpus/note/notes.js';
import type { InboxResult, OverviewResult } from '../api/corpus.js';
import type { InitResult, ListResult } from '../api/notes.js';
import type { ArchiveResult, MergeResult, SupersedeResult, WriteResult } from '../api/results.js';
import type { ReadResult, TimelineResult } from '../api/read.js';
import type { ChainNote } from '../corpus/graph/supersession.js';
import { hint } from '../hints.js';

// How results read for people: the CLI prints these, and the MCP server sends them as its text.

/** One line per note: stem, kind and title. */
export function noteLine(n: NoteInfo): string {
  const kind = n.kind ? ` [${n.kind}]` : '';
  const old = n.superseded_by ? ' (superseded)' : '';
  return `${n.slug}${kind}  ${n.title}${old}`;
}

export function initText(r: InitResult): string {
  return r.action === 'created' ? `initialized corpus at ${r.root}` : `corpus already initialized at ${r.root}`;
}

export function writeText(r: WriteResult): string {
  return r.target ? `${r.note.path} (supersedes ${r.target.path})` : r.note.path;
}

const stemOf = (path: string) => path.replace(/\.md$/, '');

/** A line for each live note whose title is like the new note's, with how to add to it instead. */
export function similarLines(r: WriteResult): string[] {
  return r.similar.map((s) => `${r.note.path} has a title like ${s.path} (${s.title}): ${hint('similarTitle', stemOf(s.path), stemOf(r.note.path))}`);
}

export function mergeText(r: MergeResult): string {
  return `merged into ${r.note.path}`;
}

/** A note of a chain: its file and title, marked when it is in the archive. */
function chainName(c: ChainNote): string {
  return `${c.path} (${c.title})${c.archived ? ' (archived)' : ''}`;
}

/**
 * What replaced a superseded note: the next note, the current belief (the last live note of the
 * chain) when that is another, and, when the next one was archived or is gone, what `tend repair`
 * does about it.
 */
function supersededLine(r: ReadResult): string {
  const [next] = r.chain;
  const live = r.chain.filter((c) => !c.archived);
  const current = live.at(-1);
  const parts = [`note: superseded by ${next ? chainName(next) : `${r.note.superseded_by} (not found)`}`];
  if (current && current !== next) parts.push(`; current: ${chainName(current)}`);
  if (!current) parts.push('; nothing current replaces it');
  if (!next || next.archived)
    parts.push(` (${hint('repairLinks')} ${live.length ? `re-links this note to ${live[0].path}` : 'makes this note current again'})`);
  return parts.join('');
}

export function readText(r: ReadResult, o: { links?: boolean } = {}): string {
  const n = r.note;
  const lines = [n.raw.trimEnd()];
  if (r.replaces.length) lines.unshift(`note: supersedes ${r.replaces.map(chainName).join(', ')}`, '');
  if (n.superseded_by) lines.unshift(supersededLine(r), '');
  if (r.as_of !== undefined) lines.unshift(`note: as of ${r.as_of}`, '');
  if (o.links !== false && r.links.length) {
    lines.push('', 'Links:');
    for (const l of r.links) lines.push(`  ${l.target}  ${l.resolved ? l.title : l.ambiguous ? `(ambiguous: ${l.ambiguous.join(', ')})` : '(missing)'}`);
  }
  if (o.links !== false && r.backlinks.length) {
    lines.push('', 'Linked from:');
    for (const b of r.backlinks) lines.push(`  ${b.path}:${b.line}  ${b.title}`);
  }
  return lines.join('\n');
}

export function listText(r: ListResult): string {
  if (!r.total && r.as_of !== undefined) return `no notes were held on ${r.as_of}`;
  if (!r.total) return `no notes here yet (${hint('firstNote')})`;
  if (!r.notes.length) return `no notes on this page (${r.total} in all)`;
  const more = r.notes.length < r.total ? `\n(${r.notes.length} of ${r.total}; ${hint('paging')})` : '';
  return r.notes.map(noteLine).join('\n') + more;
}

/** One line per belief, oldest first: when it held true, when it was recorded and superseded. */
export function timelineText(r: TimelineResult): string {
  return r.timeline
    .map((b) => {
      const valid = b.valid_from
        ? `true from ${b.valid_from}${b.valid_until ? ` until ${b.valid_until}` : ''}`
        : b.valid_until
          ? `true until ${b.valid_until}`
          : 'true at no known time';
      const fate = b.current ? 'current' : b.superseded_at ? `superseded ${b.superseded_at}` : 'superseded';
      return `${b.path}  ${b.title}  (${valid}; recorded ${b.recorded || 'at no known date'}; ${fate})`;
    })
    .join('\n');
}

export function supersedeText(r: SupersedeResult): string {
  return r.action === 'noop' ? `${r.old.path} was already superseded by ${r.new.path}` : `${r.old.path} is superseded by ${r.new.path}`;
}

export function archiveText(r: ArchiveResult): string {
  const lines = [`archived ${r.note.path} to ${r.archived}${r.reason ? ` (${r.reason})` : ''}; move it back to undo`];
  for (const l of r.relinked) {
    lines.push(l.to ? `${l.note.path} is now superseded by ${l.to.path} (${l.to.title})` : `${l.note.path} (${l.note.title}) is the current belief again`);
  }
  return lines.join('\n');
}

export function overviewText(r: OverviewResult): string {
  const kinds = Object.entries(r.by_kind)
    .filter(([, n]) => n)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const lines = [
    `${r.notes} notes${kinds ? ` (${kinds})` : ''}, ${r.superseded} superseded, ${r.archived} archived`,
    `inbox: ${r.inbox ? `${r.inbox} file(s) waiting` : 'empty'}`,
    `LLM: ${r.llm.configured ? r.llm.model : `not configured (${hint('withoutLlm')})`}`,
    `embeddings: ${r.embeddings.configured ? r.embeddings.model : 'not configured (search is lexical)'}`,
    `search backend: ${r.backend}`,
    `git: ${r.git.work_tree ? 'the corpus is in a git work tree' : `none (${r.git.reason})`}`,
  ];
  if (r.recent.length) lines.push('recently changed:', ...r.recent.map((n) => `  ${noteLine(n)}`));
  return lines.join('\n');
}

export function inboxDismissText(r: { file: string; to: string }): string {
  return `set ${r.file} aside in ${r.to}`;
}

export function inboxText(r: InboxResult): string {
  if (!r.files.length) return 'the inbox is empty';
  const lines = [`${r.items} item(s) in ${r.files.length} file(s):`];
  for (const f of r.files) {
    lines.push(`${f.file}  (${f.created ? `${f.created}${f.source ? `, from ${f.source}` : ''}: ` : ''}${f.reason})`);
    for (const it of f.items) {
      const text = it.text.replace(/\s+/g, ' ').trim();
      lines.push(`  - ${it.type === 'candidate' ? `[${it.kind}] ${it.title}: ` : ''}${text.length > 200 ? `${text.slice(0, 200)}…` : text}`);
    }
  }
  return lines.join('\n');
}
