import fs from 'node:fs';
import path from 'node:path';
import { listNoteFiles } from '../../corpus/files/note-files.js';
import { sidecar } from '../../corpus/files/paths.js';
import { FRAGMENT_HEADER } from '../../corpus/note/format.js';
import { readNoteFile, type Note } from '../../corpus/note/notes.js';
import { NoteNames } from '../../corpus/markdown/note-names.js';
import { isNoteLink, linksByName, parseLinks } from '../../corpus/markdown/links.js';

// The notes of a corpus as an export sees them: every note file (aliases, which are second names
// of a note, left out) and every archived note, with their fragments and their links resolved.

export interface ExportedNote {
  note: Note;
  archived: boolean;
}

/** A regular note file directly in `dir`, read; undefined for a symlink or an unreadable file. */
function regularNote(dir: string, name: string): Note | undefined {
  const st = fs.lstatSync(path.join(dir, name), { throwIfNoEntry: false });
  return st?.isFile() ? readNoteFile(dir, name) : undefined;
}

/** Every note file and archived note, in file-name order (the notes first). */
export function corpusNotes(root: string): ExportedNote[] {
  const out: ExportedNote[] = [];
  for (const name of listNoteFiles(root)) {
    const n = regularNote(root, name);
    if (n) out.push({ note: n, archived: false });
  }
  const archive = sidecar(root).archive;
  let archived: string[] = [];
  try {
    if (fs.lstatSync(archive).isDirectory())
      archived = fs
        .readdirSync(archive)
        .filter((n) => n.endsWith('.md') && !n.startsWith('.'))
        .sort();
  } catch {
    archived = [];
  }
  for (const name of archived) {
    const n = regularNote(archive, name);
    if (n) out.push({ note: n, archived: true });
  }
  return out;
}

export interface Fragment {
  /** The date line's day or moment. */
  date: string;
  source: string | null;
  text: string;
}

/** A body cut into its own text and its merge fragments (docs/format.md#merge-fragments). */
export function splitFragments(body: string): { text: string; fragments: Fragment[] } {
  const headers = [...body.matchAll(FRAGMENT_HEADER)];
  const fragments = headers.map((m, i) => {
    const end = i + 1 < headers.length ? headers[i + 1].index! : body.length;
    const source = /\(([^\n]*?)\):\*/.exec(m[0])?.[1] ?? null;
    return { date: m[1], source, text: body.slice(m.index! + m[0].length, end).trim() };
  });
  return { text: (headers.length ? body.slice(0, headers[0].index) : body).trim(), fragments };
}

export interface ExportedLink {
  label: string;
  /** The target as written. */
  target: string;
  /** The note it leads to, when it leads to one. */
  path: string | null;
  uuid: string | null;
}

/** Resolves the note links of every exported note against the live notes. */
export class LinkResolver {
  private readonly names: NoteNames<Note>;
  private readonly byPath: Map<string, Note>;

  constructor(notes: ExportedNote[]) {
    const live = notes.filter((n) => !n.archived).map((n) => n.note);
    this.names = new NoteNames(live);
    this.byPath = new Map(live.map((n) => [n.path, n]));
  }

  links(note: Note): ExportedLink[] {
    return parseLinks(note.raw, note.parsed.bodyOffset)
      .filter(isNoteLink)
      .map((l) => {
        const to = linksByName(l) ? this.names.resolve(l.target).note : this.byPath.get(l.target);
        return { label: l.label, target: l.target, path: to?.path ?? null, uuid: to?.uuid || l.uuid || null };
      });
  }
}
