import fs from 'node:fs';
import path from 'node:path';
import { sidecar } from '../corpus/files/paths.js';
import { isNoteFile } from '../corpus/files/note-files.js';
import { bodyParts } from '../corpus/note/merge3.js';
import { FRAGMENT_HEADER } from '../corpus/note/format.js';
import { readNoteFile, type NoteInfo } from '../corpus/note/notes.js';
import { loadNoteMetas, type NoteMeta } from '../corpus/note/note-meta.js';
import { archivedByUuid } from '../corpus/graph/supersession.js';
import { checkKind } from '../corpus/note/kinds.js';
import { isoDate } from '../corpus/note/slug.js';
import { listNotes } from '../corpus/ops/list.js';
import { lastGardenerPass, type GardenerPass } from '../corpus/ops/gardener-record.js';
import { ZkError } from '../errors.js';
import { configuredBackend } from '../search/backends.js';
import type { BackendName } from '../search/types.js';

// What a reader browsing the corpus sees beyond `read` and `search` (the viewer's pages): the
// notes most recently changed, a note's merged fragments, the trace lines about it, its split
// family, archived notes, and the gardener's last pass.

export { KINDS } from '../corpus/note/kinds.js';
export { gfmParts, gfmPartsFromMarkdown } from '../corpus/markdown/gfm-parts.js';
export type { GardenerPass };

/** A note as a list shows it, with the day its file last changed. */
export interface RecentNote extends NoteInfo {
  changed: string;
}

/** The notes most recently changed (superseded ones included), at most `max`, by source and kind; with every source seen and how many notes there are. */
export function recentNotes(root: string, o: { source?: string; kind?: string; max: number }): { notes: RecentNote[]; sources: string[]; total: number } {
  const kind = checkKind(o.kind);
  const all = listNotes(root, { history: true, recent: Number.MAX_SAFE_INTEGER });
  const sources = [...new Set(all.map((n) => n.author).filter((a): a is string => Boolean(a)))].sort();
  const shown = all.filter((n) => (!o.source || n.author === o.source) && (!kind || n.kind === kind)).slice(0, o.max);
  return { notes: shown.map((n) => ({ ...info(n), changed: isoDate(new Date(n.mtimeMs)) })), sources, total: all.length };
}

function info(n: NoteMeta): NoteInfo {
  return { uuid: n.uuid, slug: n.slug, path: n.path, title: n.title, date: n.date, kind: n.kind, author: n.author, superseded_by: n.superseded_by };
}

/** The gardener's last pass over the corpus, or null when it never ran. */
export function gardenerPass(root: string): GardenerPass | null {
  return lastGardenerPass(root);
}

const ONE_HEADER = new RegExp(FRAGMENT_HEADER.source);

/** A note's body as its own text and the fragments merged into it since, each with its date and source. */
export function noteParts(body: string): { own: string; fragments: { when: string; source: string | null; text: string }[] } {
  const [own, ...rest] = bodyParts(body);
  const fragments = rest.map((unit) => {
    const m = ONE_HEADER.exec(unit);
    const header = m ? unit.slice(0, m.index + m[0].length) : '';
    const source = /\(([^\n]*?)\):\*/.exec(header)?.[1] ?? null;
    return { when: m?.[1] ?? '', source, text: m ? unit.slice(m.index + m[0].length) : unit };
  });
  return { own, fragments };
}

/** The trace lines that name a note (its file or uuid), newest last, at most `max`. */
export function traceAbout(root: string, names: string[], max = 50): Record<string, unknown>[] {
  const file = sidecar(root).trace;
  let text = '';
  try {
    const size = fs.statSync(file).size;
    // A long trace is read from its last 8 MB: the lines about a note that matter most are recent.
    const fd = fs.openSync(file, 'r');
    try {
      const start = Math.max(0, size - 8 * 1024 * 1024);
      const buf = Buffer.alloc(size - start);
      fs.readSync(fd, buf, 0, buf.length, start);
      text = buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
  const wanted = names.filter(Boolean);
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!wanted.some((n) => line.includes(n))) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line cut by the 8 MB window, or not JSON
    }
  }
  return out.slice(-max);
}

/** The note with this uuid: live (from the kept metadata), else archived (its path under `.archive/`). */
export function noteByUuid(root: string, uuid: string): { path: string; title: string; archived: boolean } | undefined {
  const live = loadNoteMetas(root).find((m) => m.uuid.toLowerCase() === uuid);
  if (live) return { path: live.path, title: live.title, archived: false };
  const archived = archivedByUuid(root, uuid);
  return archived ? { path: `.archive/${archived.path}`, title: archived.title, archived: true } : undefined;
}

const splitFrom = (fm: Record<string, unknown>) =>
  String(fm.split_from ?? '')
    .trim()
    .toLowerCase();

/** The uuid a note was split from, lower case, or '' when it was not. */
export function splitFromOf(frontmatter: Record<string, unknown>): string {
  return splitFrom(frontmatter);
}

/**
 * The notes split from the note with `uuid`. A part links to the note it was split from (its
 * `Part of` line), so the parts are among its backlinks: no search of every note.
 */
export function splitParts(root: string, uuid: string, backlinks: readonly { path: string }[]): { path: string; title: string }[] {
  const own = uuid.toLowerCase();
  if (!own) return [];
  return backlinks
    .flatMap((b) => readNoteFile(root, b.path) ?? [])
    .filter((n) => splitFrom(n.parsed.frontmatter) === own)
    .map((n) => ({ path: n.path, title: n.title }));
}

/** An archived note (a file name in `.archive/`), read-only. */
export function archivedNote(root: string, name: string): NoteInfo & { frontmatter: Record<string, unknown>; body: string } {
  if (name.includes('/') || name.startsWith('.') || !/\.md$/i.test(name)) throw new ZkError('not_found', `no archived note ${name}`);
  const n = readNoteFile(sidecar(root).archive, name);
  if (!n) throw new ZkError('not_found', `no archived note ${name}`);
  return {
    uuid: n.uuid,
    slug: n.slug,
    path: path.posix.join('.archive', name),
    title: n.title,
    date: n.date,
    kind: n.kind,
    author: n.author,
    superseded_by: n.superseded_by,
    frontmatter: n.parsed.frontmatter,
    body: n.parsed.body,
  };
}

/** A live note named by its file name, or undefined when the root has none of that name. */
export function liveNote(root: string, name: string): { path: string; title: string } | undefined {
  const n = isNoteFile(root, name) ? readNoteFile(root, name) : undefined;
  return n ? { path: n.path, title: n.title } : undefined;
}

/** The backend a search with this `--backend` (or none) would use: the flag, else ZK_MEMORY_BACKEND, else auto. */
export function backendInForce(flag?: string): BackendName {
  return configuredBackend(flag);
}
