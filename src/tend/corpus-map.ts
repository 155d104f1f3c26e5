import fs from 'node:fs';
import { parseBody, parseLinks, type Link, type MarkdownDoc } from '../corpus/links.js';
import { NoteNames, type WikiResolution } from '../corpus/note-names.js';
import { readNoteFile, type Note } from '../corpus/notes.js';
import { sidecar } from '../corpus/paths.js';
import { noteHeadings, type NoteHeadings } from '../corpus/headings.js';

/** How many supersession steps to follow from an archived note to a live successor. */
const MAX_SUCCESSION = 16;

/**
 * Everything link checking needs to know about a corpus, built in one pass over its notes so that
 * resolving a link is a map lookup, never a scan: notes by file name, by uuid and by every name a
 * wikilink may give them, each note's parse (made on first use, once per note: the links of a
 * note and the headings its inbound links name come from one parse), and the archive (read only
 * when a link points at a note that is no longer in the root).
 */
export class CorpusMap {
  private readonly byName = new Map<string, Note>();
  private readonly byUuid = new Map<string, Note[]>();
  private readonly notes: Note[];
  private names?: NoteNames;
  private readonly docs = new WeakMap<Note, MarkdownDoc>();
  private readonly heads = new WeakMap<Note, NoteHeadings>();
  private archive?: { byName: Map<string, Note>; byUuid: Map<string, Note>; names: NoteNames };

  constructor(private readonly root: string, notes: Note[]) {
    for (const n of notes) {
      this.byName.set(n.path, n);
      const uuid = n.uuid.toLowerCase();
      if (!uuid) continue;
      const holders = this.byUuid.get(uuid);
      if (holders) holders.push(n);
      else this.byUuid.set(uuid, [n]);
    }
    this.notes = notes;
  }

  /** A note's body, parsed once (a note re-read under the lock is a new object, parsed anew). */
  doc(note: Note): MarkdownDoc {
    let d = this.docs.get(note);
    if (!d) {
      d = parseBody(note.raw, note.parsed.bodyOffset);
      this.docs.set(note, d);
    }
    return d;
  }

  /** The links of a note's body. */
  links(note: Note): Link[] {
    return parseLinks(note.raw, { from: note.parsed.bodyOffset, doc: this.doc(note) });
  }

  /** What a wikilink target names among the live notes. */
  resolveWiki(target: string): WikiResolution {
    return this.wikiNames().resolve(target);
  }

  /** How a wikilink to `to` is written in the style of the target it had. */
  wikiName(to: Note, written: string): string {
    return this.wikiNames().nameFor(to, written);
  }

  /** Built on the first wikilink: a corpus without any pays nothing for it. */
  private wikiNames(): NoteNames {
    return (this.names ??= new NoteNames(this.notes));
  }

  note(name: string): Note | undefined {
    return this.byName.get(name);
  }

  /** The live notes holding a uuid (more than one means the uuid was copied). */
  holders(uuid: string): Note[] {
    return this.byUuid.get(uuid.toLowerCase()) ?? [];
  }

  /** Uuids held by more than one note, with their files. */
  duplicateUuids(): [string, string[]][] {
    return [...this.byUuid].filter(([, ns]) => ns.length > 1).map(([u, ns]) => [u, ns.map((n) => n.path)]);
  }

  headings(note: Note): NoteHeadings {
    let h = this.heads.get(note);
    if (!h) {
      h = noteHeadings(this.doc(note));
      this.heads.set(note, h);
    }
    return h;
  }

  /** The archived note a dead link meant: by its anchor uuid when it has one, else by its name. */
  archived(link: Pick<Link, 'form' | 'target' | 'uuid'>): Note | undefined {
    const a = this.loadArchive();
    if (link.uuid) return a.byUuid.get(link.uuid.toLowerCase());
    return link.form === 'wiki' ? a.names.resolve(link.target).note : a.byName.get(link.target);
  }

  /** The live note that replaced an archived one, following `superseded_by` through the archive. */
  successor(archived: Note): Note | undefined {
    let current: Note | undefined = archived;
    for (let step = 0; current?.superseded_by && step < MAX_SUCCESSION; step++) {
      const next = current.superseded_by.toLowerCase();
      const live = this.holders(next);
      if (live.length === 1) return live[0];
      if (live.length > 1) return undefined;
      current = this.loadArchive().byUuid.get(next);
    }
    return undefined;
  }

  private loadArchive() {
    if (this.archive) return this.archive;
    const dir = sidecar(this.root).archive;
    const byName = new Map<string, Note>();
    const byUuid = new Map<string, Note>();
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir).filter((f) => f.endsWith('.md')).sort();
    } catch {
      // no archive yet
    }
    for (const name of names) {
      const n = readNoteFile(dir, name);
      if (!n) continue;
      byName.set(name, n);
      const uuid = n.uuid.toLowerCase();
      // a note archived twice keeps the copy that knows its successor
      if (uuid && (!byUuid.has(uuid) || n.superseded_by)) byUuid.set(uuid, n);
    }
    this.archive = { byName, byUuid, names: new NoteNames(byName.values()) };
    return this.archive;
  }
}
