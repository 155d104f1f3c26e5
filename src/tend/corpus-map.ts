import fs from 'node:fs';
import { readNoteFile, type Note } from '../corpus/notes.js';
import { sidecar } from '../corpus/paths.js';
import { headingSlugs } from './headings.js';

/** How many supersession steps to follow from an archived note to a live successor. */
const MAX_SUCCESSION = 16;

/**
 * Everything link checking needs to know about a corpus, built in one pass over its notes so that
 * resolving a link is a map lookup, never a scan: notes by file name and by uuid, each note's
 * heading slugs (computed on first use, once per note), and the archive (read only when a link
 * points at a note that is no longer in the root).
 */
export class CorpusMap {
  private readonly byName = new Map<string, Note>();
  private readonly byUuid = new Map<string, Note[]>();
  private readonly slugs = new Map<string, Set<string>>();
  private archive?: { byName: Map<string, Note>; byUuid: Map<string, Note> };

  constructor(private readonly root: string, notes: Note[]) {
    for (const n of notes) {
      this.byName.set(n.path, n);
      const uuid = n.uuid.toLowerCase();
      if (!uuid) continue;
      const holders = this.byUuid.get(uuid);
      if (holders) holders.push(n);
      else this.byUuid.set(uuid, [n]);
    }
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

  headings(note: Note): Set<string> {
    let s = this.slugs.get(note.path);
    if (!s) {
      s = headingSlugs(note.parsed.body);
      this.slugs.set(note.path, s);
    }
    return s;
  }

  /** The archived note a dead link meant: by its anchor uuid when it has one, else by file name. */
  archived(name: string, uuid?: string): Note | undefined {
    const a = this.loadArchive();
    return uuid ? a.byUuid.get(uuid.toLowerCase()) : a.byName.get(name);
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
    this.archive = { byName, byUuid };
    return this.archive;
  }
}
