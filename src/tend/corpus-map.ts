import fs from 'node:fs';
import type { NoteHeadings } from '../corpus/markdown/headings.js';
import { NoteNames, type Named, type WikiResolution } from '../corpus/markdown/note-names.js';
import { linksByName } from '../corpus/markdown/links.js';
import { readNoteFile, type Note } from '../corpus/note/notes.js';
import { sidecar } from '../corpus/files/paths.js';
import { headingLists, type AnswerOf, type NoteFacts, type TendedLink } from '../corpus/graph/facts.js';
import { MultiMap } from '../corpus/multimap.js';

/** How many supersession steps to follow from an archived note to a live successor. */
const MAX_SUCCESSION = 16;

/** An archived note, as links and supersession chains name it. */
export type Archived = Named & { uuid: string };

/**
 * The live notes' side of a CorpusMap: built from their facts alone, so a resident process keeps
 * it between checks until a note changes (src/tend/run.ts).
 */
export class LiveNotes {
  /** A note's facts by its file name: a resident process's own look-up, else a map of these notes. */
  readonly byName: AnswerOf<NoteFacts>;
  readonly byUuid = new MultiMap<string, NoteFacts>();
  /** Uuids held by more than one note, with their files. */
  readonly duplicates: [string, string[]][];
  private names?: NoteNames<NoteFacts>;
  private readonly heads = new WeakMap<NoteFacts, NoteHeadings>();

  constructor(
    readonly notes: readonly NoteFacts[],
    factsOf?: AnswerOf<NoteFacts>,
  ) {
    if (factsOf) this.byName = factsOf;
    else {
      const byName = new Map(notes.map((n) => [n.path, n]));
      this.byName = (name) => byName.get(name);
    }
    for (const n of notes) {
      const uuid = n.uuid.toLowerCase();
      if (uuid) this.byUuid.add(uuid, n);
    }
    this.duplicates = [...this.byUuid.entries()].filter(([, ns]) => ns.length > 1).map(([u, ns]) => [u, ns.map((n) => n.path)]);
  }

  /** Built on the first wikilink: a corpus without any pays nothing for it. */
  wikiNames(): NoteNames<NoteFacts> {
    return (this.names ??= new NoteNames(this.notes));
  }

  headings(note: NoteFacts): NoteHeadings {
    let h = this.heads.get(note);
    if (!h) {
      const lists = headingLists(note);
      h = { slugs: new Set(lists.slugs), texts: new Set(lists.texts), blocks: new Set(lists.blocks) };
      this.heads.set(note, h);
    }
    return h;
  }
}

/**
 * Everything link checking needs to know about a corpus, built in one pass over its notes' facts
 * (src/corpus/graph/facts.ts) so that resolving a link is a map lookup, never a scan: notes by file name,
 * by uuid and by every name a wikilink may give them, and the archive (read only when a link
 * points at a note that is no longer in the root, and again by every map: nothing watches it).
 */
export class CorpusMap {
  private readonly live: LiveNotes;
  private archive?: { byName: Map<string, Note>; byUuid: Map<string, Note>; names: NoteNames<Note> };

  /** Whether anything asked for the archive: what was found then depends on it too. */
  get archiveRead(): boolean {
    return this.archive !== undefined;
  }

  constructor(
    private readonly root: string,
    notes: readonly NoteFacts[] | LiveNotes,
  ) {
    this.live = notes instanceof LiveNotes ? notes : new LiveNotes(notes);
  }

  /** What a wikilink target names among the live notes. */
  resolveWiki(target: string): WikiResolution<NoteFacts> {
    return this.live.wikiNames().resolve(target);
  }

  /** How a wikilink to `to` is written in the style of the target it had. */
  wikiName(to: Named, written: string): string {
    return this.live.wikiNames().nameFor(to, written);
  }

  note(name: string): NoteFacts | undefined {
    return this.live.byName(name);
  }

  /** The live notes holding a uuid (more than one means the uuid was copied). */
  holders(uuid: string): NoteFacts[] {
    return this.live.byUuid.get(uuid.toLowerCase());
  }

  /** Uuids held by more than one note, with their files. */
  duplicateUuids(): [string, string[]][] {
    return this.live.duplicates;
  }

  headings(note: NoteFacts): NoteHeadings {
    return this.live.headings(note);
  }

  /** The archived note a dead link meant: by its anchor uuid when it has one, else by its name. */
  archived(link: Pick<TendedLink, 'form' | 'target' | 'uuid'>): Archived | undefined {
    if (link.uuid) return this.archivedByUuid(link.uuid);
    const a = this.loadArchive();
    return linksByName(link) ? a.names.resolve(link.target).note : a.byName.get(link.target);
  }

  /** The archived note with this uuid. */
  archivedByUuid(uuid: string): Archived | undefined {
    return this.loadArchive().byUuid.get(uuid.toLowerCase());
  }

  /** The live note that replaced an archived one, following `superseded_by` through the archive. */
  successor(archived: Archived): NoteFacts | undefined {
    let current: Archived | undefined = archived;
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
      names = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.md'))
        .sort();
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
    this.archive = { byName, byUuid, names: new NoteNames<Note>(byName.values()) };
    return this.archive;
  }
}
