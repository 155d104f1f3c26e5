import type { NoteInfo } from '../corpus/notes.js';
import type { InitResult, ListResult, MergeResult, ReadResult, SupersedeResult, WriteResult } from '../api/notes.js';

// How results read for people: the CLI prints these, and the MCP server sends them as its text.

/** One line per note: stem, kind and title. */
export function noteLine(n: NoteInfo): string {
  const kind = n.kind ? ` [${n.kind}]` : '';
  const old = n.superseded_by ? ' (superseded)' : '';
  return `${n.slug}${kind}  ${n.title}${old}`;
}

/** Counts for people: `3 kept, 1 merged`, or `none` when there are none. */
export function countsText(counts: Record<string, number>, none = 'none'): string {
  return Object.entries(counts).map(([what, n]) => `${n} ${what}`).join(', ') || none;
}

export function initText(r: InitResult): string {
  return r.action === 'created' ? `initialized corpus at ${r.root}` : `corpus already initialized at ${r.root}`;
}

export function writeText(r: WriteResult): string {
  return r.target ? `${r.note.path} (supersedes ${r.target.path})` : r.note.path;
}

export function mergeText(r: MergeResult): string {
  return `merged into ${r.note.path}`;
}

export function readText(r: ReadResult, o: { links?: boolean } = {}): string {
  const n = r.note;
  const lines = [n.raw.replace(/\s+$/, '')];
  if (n.superseded_by) {
    const [next] = r.chain;
    const current = r.chain[r.chain.length - 1];
    const by = next ? `${next.path} (${next.title})` : `${n.superseded_by} (not found)`;
    const now = current && current !== next ? `; current: ${current.path} (${current.title})` : '';
    lines.unshift(`note: superseded by ${by}${now}`, '');
  }
  if (o.links !== false && r.links.length) {
    lines.push('', 'Links:');
    for (const l of r.links) lines.push(`  ${l.target}  ${l.resolved ? l.title : '(missing)'}`);
  }
  return lines.join('\n');
}

export function listText(r: ListResult): string {
  return r.notes.map(noteLine).join('\n');
}

export function supersedeText(r: SupersedeResult): string {
  return r.action === 'noop' ? `${r.old.path} was already superseded by ${r.new.path}` : `${r.old.path} is superseded by ${r.new.path}`;
}
