import { candidateFiles } from './grep.js';
import { linkFragmentFound, noteHeadings, type NoteHeadings } from '../markdown/headings.js';
import { encodeTarget, isNoteLink, linksByName, parseBody, parseLinks, type Link } from '../markdown/links.js';
import type { LinkForm } from '../markdown/markdown.js';
import { nameKey, NoteNames, wikiNamesOf } from '../markdown/note-names.js';
import { readNoteFile, type Note } from '../note/notes.js';
import { listNoteFiles } from '../files/note-files.js';
import { keptFactsBuilt, type AnswerOf, type NoteFacts } from './facts.js';
import { MultiMap } from '../multimap.js';

// Where a note's links lead and which notes link to it, found without reading every note: only
// the files the grep port finds for the names the links use and the note's own names are read. A
// resident process, which keeps every note's links warm (src/corpus/graph/facts.ts), finds those
// files in an index of them instead of searching every note's text, and places a backlink by the
// linking note's kept links instead of reading it.

export interface ResolvedLink {
  label: string;
  /** The target as the link names it: a file name, or a wikilink's name. */
  target: string;
  /** The uuid of the note the link resolves to; the anchor's uuid when it resolves to no note with one. */
  uuid: string | null;
  /** The uuid the link's anchor names, when it is not the resolved note's (a stale anchor). */
  anchor_uuid?: string;
  resolved: boolean;
  title: string | null;
  line: number;
  form: LinkForm;
  /** The note file the link leads to, when it leads to one. */
  path: string | null;
  /** The notes a wikilink's name fits, when it fits several. */
  ambiguous?: string[];
}

export interface Backlink {
  path: string;
  title: string;
  /** The line of the first link to the note. */
  line: number;
}

/** The links of a note's body (not its frontmatter), with line numbers of the file. */
export function noteLinks(note: Note): Link[] {
  return parseLinks(note.raw, note.parsed.bodyOffset).filter(isNoteLink);
}

/**
 * Every note's names and links, indexed so that a read finds the notes its links and backlinks may
 * involve by look-ups instead of a pass over every note: kept by a resident process until a note
 * changes (see `keptFactsBuilt`).
 */
export interface LinkIndex {
  /** A note's facts by its file name, as the resident process keeps them: a backlink's title and line are read from its links. */
  factsOf: AnswerOf<NoteFacts>;
  /**
   * Notes by the keys of their file name (whole, without `.md`, and the undated slug) that
   * `factsOf` does not answer: a file name that is its own key is found there (see `namedBy`).
   */
  byFileName: MultiMap<string, string>;
  byTitle: MultiMap<string, string>;
  /** Notes with a link by a uuid anchor, by a name (its key), or by a file name, to what it names. */
  linkingUuid: MultiMap<string, string>;
  linkingName: MultiMap<string, string>;
  linkingFile: MultiMap<string, string>;
}

/** The names a note's file name gives it (a title aside). */
const fileNameKeys = (path: string) => wikiNamesOf({ path });

/**
 * The keys of a file name `byFileName` holds: not the name or its stem when they are their own key
 * (every name the tool writes), which `factsOf` answers. Two keys a note fewer was 130 bytes a
 * note in a resident server.
 */
const keptFileNameKeys = (path: string) => fileNameKeys(path).filter((key) => key !== path && `${key}.md` !== path);

/** The notes a key of file names names: by the name or the stem it is, or as `byFileName` keeps them. */
function namedBy(index: LinkIndex, key: string): string[] {
  return [...[key, `${key}.md`].filter((name) => index.factsOf(name) !== undefined), ...index.byFileName.get(key)];
}

export function linkIndex(facts: readonly NoteFacts[], factsOf: AnswerOf<NoteFacts>): LinkIndex {
  const index: LinkIndex = {
    factsOf,
    byFileName: new MultiMap(),
    byTitle: new MultiMap(),
    linkingUuid: new MultiMap(),
    linkingName: new MultiMap(),
    linkingFile: new MultiMap(),
  };
  for (const f of facts) indexNote(index, f, true);
  return index;
}

/** Enter (`adding`) or take out every key of one note's facts. */
function indexNote(index: LinkIndex, f: NoteFacts, adding: boolean): void {
  // A file is put under a key once (a note's facts come one note at a time: the last one added is its own).
  const put = (map: MultiMap<string, string>, key: string, file: string) => (adding ? map.add(key, file) : map.remove(key, file));
  for (const key of keptFileNameKeys(f.path)) put(index.byFileName, key, f.path);
  put(index.byTitle, nameKey(f.title), f.path);
  for (const l of f.links) {
    if (l.uuid) put(index.linkingUuid, l.uuid, f.path);
    if (linksByName(l)) put(index.linkingName, nameKey(l.target), f.path);
    else put(index.linkingFile, l.target, f.path);
  }
}

/** `linkIndex` brought up to date with one note's change (a write or a merge: no pass over every note). */
export function followLinkIndex(index: LinkIndex, was: NoteFacts | undefined, now: NoteFacts | undefined): void {
  if (was) indexNote(index, was, false);
  if (now) indexNote(index, now, true);
}

/** The files that may be involved in `note`'s links (see `involvedNotes`): those named by file name, and the rest. */
interface Candidates {
  named: Set<string>;
  maybe: string[];
}

/**
 * What the grep port finds for several notes at once, without an index: one listing and one search
 * of every note's text for all their names, each note's share of it checked by `involvedNotes`.
 * Every file name is keyed once, and each note gets the files named by one of its `wikiNames`.
 */
function grepCandidates(root: string, terms: readonly LinkTerms[]): { files: Set<string>; each: Candidates[] } {
  const files = listNoteFiles(root);
  const askers = new MultiMap<string, number>();
  terms.forEach((t, i) => {
    for (const name of t.wikiNames) askers.add(name, i);
  });
  const named = terms.map(() => new Set<string>());
  for (const f of files) for (const key of fileNameKeys(f)) for (const i of askers.get(key)) named[i].add(f);
  const patterns = new Set(terms.flatMap((t) => [...t.wikiNames, ...t.linking]));
  const maybe = patterns.size ? candidateFiles(root, [...patterns], { fixed: true }) : [];
  return { files: new Set(files), each: named.map((n) => ({ named: n, maybe })) };
}

/**
 * What the grep port would find, from the index: the notes named or titled one of its `wikiNames`, and those with a
 * link that may lead to `note` (by its uuid, a name it goes by, or its file name). A note found by
 * a link alone is not read when its kept links show that its text holds one of `linking` (as the
 * grep port would find it): its facts place the backlink (`kept`).
 */
function indexCandidates(index: LinkIndex, note: Note, { wikiNames, linking }: LinkTerms): Candidates & { kept: NoteFacts[] } {
  const named = new Set([...wikiNames].flatMap((k) => namedBy(index, k)));
  const maybe = [...wikiNames].flatMap((k) => index.byTitle.get(k));
  const read = new Set([note.path, ...named, ...maybe]);
  const linkers = new Set(note.uuid ? index.linkingUuid.get(note.uuid.toLowerCase()) : []);
  for (const own of new Set(wikiNamesOf(note))) for (const p of index.linkingName.get(own)) linkers.add(p);
  for (const p of index.linkingFile.get(note.path)) linkers.add(p);
  const kept: NoteFacts[] = [];
  for (const p of linkers) {
    if (read.has(p)) continue;
    const f = index.factsOf(p);
    if (f && linksShow(f, linking)) kept.push(f);
    else maybe.push(p);
  }
  return { named, maybe, kept };
}

/**
 * Whether a note's links show that its text holds one of `linking` (lowercase), as the text check
 * of `involvedNotes` would find: a uuid anchor, or a target written with no capital sigma (the one
 * letter whose lowercase depends on its neighbours, so the target alone lowercases as it does
 * within the whole text).
 */
function linksShow(f: NoteFacts, linking: string[]): boolean {
  return f.links.some(
    (l) => (l.uuid !== undefined && linking.includes(l.uuid)) || (!l.written.includes('Σ') && linking.some((s) => l.written.toLowerCase().includes(s))),
  );
}

/**
 * The notes among the candidates besides `note` that its links and backlinks may involve, each
 * read once: those named by file name as one of `wikiNames` (lowercase), those whose title is one of
 * them, and those whose text mentions one of `linking` (the few names `note` goes by: a link to
 * it holds one). A title is looked up as a key, never searched for in the text, so a hub of many
 * wikilinks costs one look-up per note read, not one search per name.
 */
function involvedNotes(note: Note, { named, maybe }: Candidates, { wikiNames, linking }: LinkTerms, read: NoteReader): Note[] {
  const found = new Set([...maybe, ...named]);
  found.delete(note.path);
  const notes: Note[] = [];
  for (const name of [...found].sort()) {
    const n = read(name);
    if (!n) continue;
    if (named.has(name) || wikiNames.has(nameKey(n.title))) notes.push(n);
    else {
      const text = n.raw.toLowerCase();
      if (linking.some((l) => text.includes(l))) notes.push(n);
    }
  }
  return notes;
}

/** What a note's links and the links to it are looked for by. */
interface LinkTerms {
  links: Link[];
  /** Every name (a key) a wikilink of the note uses, and the note's own names. */
  wikiNames: Set<string>;
  /** The few names the note goes by, lowercase: a link to it holds one. */
  linking: string[];
}

function linkTerms(note: Note): LinkTerms {
  const links = noteLinks(note);
  const own = wikiNamesOf(note);
  // Every note a wikilink name could fit is involved (by file name or title), and so is every
  // note that may link here.
  const wikiNames = new Set([...links.filter(linksByName).map((l) => nameKey(l.target)), ...own].filter(Boolean));
  // A name link may write the title %-encoded (`[Dana](Dana%20Whitfield)`).
  const linking = [
    ...new Set([...own, encodeTarget(note.path).toLowerCase(), encodeTarget(note.title).toLowerCase(), note.uuid.toLowerCase()].filter(Boolean)),
  ];
  return { links, wikiNames, linking };
}

/** A note file read once for every graph of one call (none when it is not a note). */
type NoteReader = (file: string) => Note | undefined;

function noteReader(root: string): NoteReader {
  const read = new Map<string, Note | undefined>();
  return (file) => {
    if (!read.has(file)) read.set(file, readNoteFile(root, file));
    return read.get(file);
  };
}

export interface LinkGraph {
  links: ResolvedLink[];
  backlinks: Backlink[];
}

/** A note's links resolved to the notes they lead to, and the notes that link to it. */
export function linkGraph(root: string, note: Note): LinkGraph {
  return linkGraphs(root, [note])[0];
}

/**
 * The link graphs of several notes, each as `linkGraph` finds it: a resident process finds the notes
 * they involve in its index of every note's links; a call of its own, by one grep for them all (a
 * grep of a million notes takes seconds), and reads each note once.
 */
export function linkGraphs(root: string, notes: readonly Note[]): LinkGraph[] {
  if (!notes.length) return [];
  const terms = notes.map(linkTerms);
  const read = noteReader(root);
  const index = keptFactsBuilt(root, 'link-index', linkIndex, followLinkIndex);
  if (index) {
    const files = { has: (file: string) => index.factsOf(file) !== undefined };
    return notes.map((note, i) => graphOf(note, terms[i], { ...indexCandidates(index, note, terms[i]), files }, read));
  }
  const { files, each } = grepCandidates(root, terms);
  return notes.map((note, i) => graphOf(note, terms[i], { ...each[i], kept: [], files }, read));
}

function graphOf(
  note: Note,
  terms: LinkTerms,
  candidates: Candidates & { kept: NoteFacts[]; files: { has(file: string): boolean } },
  read: NoteReader,
): LinkGraph {
  const { links } = terms;
  // The notes that hold a name involved are read, so `names` resolves as with every note; a linking
  // note whose facts were kept holds none of them (it would be named or titled so).
  const notes = [note, ...involvedNotes(note, candidates, terms, read)];
  const names = new NoteNames(notes);
  // A hub links to the same notes many times: each target is read (by `read`, once a call), and its
  // headings parsed, once; the notes involved are taken as they were given (`note` may be as it stood then).
  const given = new Map(notes.map((n) => [n.path, n]));
  const noteAt = (file: string) => given.get(file) ?? read(file);
  const headings = new Map<Note, NoteHeadings>();
  const headingsOf = (n: Note) => {
    let h = headings.get(n);
    if (!h) headings.set(n, (h = noteHeadings(parseBody(n.raw, n.parsed.bodyOffset))));
    return h;
  };

  const resolved = links.map((l): ResolvedLink => {
    const base = { label: l.label, target: l.fragment !== undefined ? `${l.target}#${l.fragment}` : l.target, line: l.line, form: l.form };
    let to: Note | undefined;
    let ambiguous: string[] | undefined;
    if (linksByName(l)) {
      const r = names.resolve(l.target);
      to = r.note ?? (l.uuid ? r.ambiguous?.find((n) => n.uuid.toLowerCase() === l.uuid) : undefined);
      if (!to && r.ambiguous) ambiguous = r.ambiguous.map((n) => n.path);
    } else if (candidates.files.has(l.target)) {
      to = noteAt(l.target);
    }
    // A link to a heading its note does not have is not resolved, as `tend check` calls it broken.
    if (to && !linkFragmentFound(headingsOf(to), l)) to = undefined;
    const uuid = to?.uuid || l.uuid || null;
    const anchor = l.uuid && l.uuid.toLowerCase() !== uuid?.toLowerCase() ? { anchor_uuid: l.uuid } : {};
    return { ...base, uuid, ...anchor, resolved: Boolean(to), title: to?.title ?? null, path: to?.path ?? null, ...(ambiguous ? { ambiguous } : {}) };
  });

  const uuid = note.uuid.toLowerCase();
  const leadsHere = (l: Link) => (uuid && l.uuid === uuid) || (linksByName(l) ? names.resolve(l.target).note === note : l.target === note.path);
  const backlinks: Backlink[] = [];
  const place = (path: string, title: string, itsLinks: readonly Link[]) => {
    const first = itsLinks.find(leadsHere);
    if (first) backlinks.push({ path, title, line: first.line });
  };
  for (const other of notes) if (other !== note) place(other.path, other.title, noteLinks(other));
  for (const f of candidates.kept) place(f.path, f.title, f.links.filter(isNoteLink));
  // In file-name order, as the notes were read.
  if (candidates.kept.length) backlinks.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { links: resolved, backlinks };
}
