import fs from 'node:fs';
import { now } from '../../context.js';
import { ZkError } from '../../errors.js';
import { candidateFiles } from './grep.js';
import { readNoteFile, type Note } from '../note/notes.js';
import { isNoteFile, listNoteFiles } from '../files/note-files.js';
import { keptFactsBuilt, type NoteFacts } from './facts.js';
import { newestCurrent, undatedSlug } from '../markdown/note-names.js';
import { hint } from '../../hints.js';
import { sidecar } from '../files/paths.js';
import { indexedNames, slugKey } from '../files/name-index.js';
import { likelyNotes, notesTitled, refTitleCandidates, type Titled } from './ref-titles.js';
import { capSlug, earlierSlug, isoDate, MAX_TITLE_SLUG, slugify, stemFor, titleSlug } from '../note/slug.js';
import { MultiMap } from '../multimap.js';

const UUID_PREFIX = /^[0-9a-f]{8}[0-9a-f-]*$/i;

/**
 * Resolve a ref (file name, stem, uuid or uuid prefix of 8+ hex digits, undated slug) to a note in
 * the root; a ref that is none of these is slugged as a title is, as a given slug is, and as the
 * earlier rule slugged both (`Café Crème` names `…-cafe-creme.md`, `Dana's trip` names
 * `…-danas-trip.md` or an older `…-dana-s-trip.md`); last, a title's slug names the note whose
 * older, longer name that title made; last of all, a note's frontmatter title as written (case
 * aside). A ref is a name, never a path: one that could point elsewhere (`a/b`, `.x`) can only be a
 * title. A ref that names nothing is refused with the notes it most likely meant.
 */
export function resolveRef(root: string, ref: string): Note {
  const r = ref.trim();
  if (!r) throw new ZkError('usage', 'empty ref: name a note by uuid, stem or file name');
  if (r.includes('\0')) throw new ZkError('invalid_ref', `invalid ref: ${JSON.stringify(quoted(ref))} (a ref names a note in the corpus root, not a path)`);
  // A ref that could point elsewhere is never a file name, but it may be a title (`Lisbon/Porto trip`).
  const titled = refTitleCandidates(root, r);
  if (/[/\\]/.test(r) || r.startsWith('.')) {
    return (
      noteTitled(root, titled, r) ??
      unknown(
        root,
        titled,
        r,
        `invalid ref: ${JSON.stringify(quoted(ref))} (a ref names a note in the corpus root, not a path, unless it is a note's title)`,
        'invalid_ref',
      )
    );
  }
  const short = /^[0-9a-f]{4,7}$/i.test(r) ? ' (a uuid prefix needs at least 8 hex digits)' : '';
  return namedNote(root, r) ?? noteTitled(root, titled, r) ?? unknown(root, titled, r, `unknown ref: ${quoted(r)}${short}`, 'not_found');
}

/** A ref as an answer quotes it: cut to 200 characters, so a pasted text is not echoed whole. */
function quoted(ref: string): string {
  return ref.length > 200 ? `${ref.slice(0, 200)}…` : ref;
}

/** The note a ref names by file name, stem, uuid or slug, as resolveRef tries them. */
function namedNote(root: string, r: string): Note | undefined {
  const byName = r.endsWith('.md') ? r : `${r}.md`;
  if (isNoteFile(root, byName)) return notesNamedBy(root, r)!;
  if (UUID_PREFIX.test(r)) {
    const want = r.toLowerCase();
    const hits = notesWithUuidPrefix(root, want);
    if (hits.length === 1) return hits[0];
    if (hits.length > 1) {
      throw new ZkError('ambiguous_ref', `ambiguous ref: ${r} matches ${hits.map((n) => n.path).join(', ')}`);
    }
  }
  for (const name of new Set([r, titleSlug(r), slugify(r), earlierSlug(r)])) {
    const named = notesNamedBy(root, name);
    if (named) return named;
  }
  const renamed = noteNamedByEarlierRule(root, titleSlug(r));
  if (renamed) return renamed;
  return undefined;
}

/**
 * The note whose frontmatter title is the ref, case aside: the one current note of that title when
 * several bear it.
 */
function noteTitled(root: string, candidates: () => Titled[], r: string): Note | undefined {
  const titled = notesTitled(candidates(), r);
  const current = titled.filter((n) => !n.superseded_by);
  const one = current.length === 1 ? current[0] : titled.length === 1 ? titled[0] : undefined;
  if (one) return readNoteFile(root, one.path);
  if (titled.length)
    throw new ZkError('ambiguous_ref', `ambiguous ref: ${quoted(r)} is the title of ${titled.map((n) => n.path).join(', ')} (${hint('nameByFile')})`);
  return undefined;
}

/** A ref that names no note: refused with the notes it most likely meant, in the message and as `suggestions`. */
function unknown(root: string, candidates: () => Titled[], r: string, message: string, code: 'not_found' | 'invalid_ref'): never {
  const likely = likelyNotes(root, r, candidates());
  const said = likely.map((n) => `${n.path} (${n.title})`).join(', ');
  throw new ZkError(code, likely.length ? `${message}; did you mean ${said}?` : message, {
    suggestions: likely.map((n) => ({ path: n.path, title: n.title, uuid: n.uuid })),
  });
}

/**
 * The dated notes whose undated slug is `slug` (`judy` for `20261130-judy.md`), in name order. A
 * folder listing may be stale on a network mount that caches it (a note just written on another
 * host is missing), so the names a recent note would have (yesterday, today and tomorrow, for
 * hosts in other time zones) are also checked one by one. A resident process finds them among the
 * notes it keeps (listing the folder was most of a `read` and of a `write` at 50,000 notes), unless
 * `listed`. A `writer` deciding whether a slug is free takes the kept names too: its call waited for the
 * watcher when it began, and a note another call wrote since, which the watcher may not have named
 * yet, bears a recent date, whose names are checked one by one. Otherwise the name index is asked
 * (src/corpus/files/name-index.ts: every note the tool wrote, and those the search index has
 * seen), and the folder listed only where there is none, or where it knows no note of the slug
 * and the caller is not a writer (a note made by hand a moment ago is found all the same).
 */
export function notesWithSlug(root: string, slug: string, o: { listed?: boolean; writer?: boolean } = {}): string[] {
  if (!slug || Buffer.byteLength(slug, 'utf8') > 240) return [];
  const kept = o.listed ? undefined : keptFactsBuilt(root, 'dated-by-slug', datedBySlug, followDated);
  const indexed = kept ? undefined : indexedSlug(root, slug);
  // A writer trusts the index when it knows none; a ref to a note made by hand a moment ago, which
  // the index has not seen yet, must still find it.
  const trusted = indexed && (indexed.length || o.listed || o.writer) ? indexed : undefined;
  const names = new Set(kept ? kept.get(slug) : (trusted ?? listNoteFiles(root).filter((n) => undatedSlug(n) === slug)));
  for (const days of [-1, 0, 1]) {
    const name = `${stemFor(isoDate(new Date(now() + days * 86_400_000)), slug)}.md`;
    if (!names.has(name) && isNoteFile(root, name)) names.add(name);
  }
  return [...names].sort();
}

/**
 * The notes the name index (src/corpus/files/name-index.ts) says hold `slug` and still do, or
 * undefined without a complete index: every note the tool wrote, by any process, and every note
 * the search index has seen, without listing the folder (nine seconds at 1,000,000 notes).
 */
function indexedSlug(root: string, slug: string): string[] | undefined {
  return indexedNames(root, slugKey(slug))?.filter((n) => undatedSlug(n) === slug && isNoteFile(root, n));
}

/** Dated notes by their undated slug. */
export function datedBySlug(facts: readonly NoteFacts[]): MultiMap<string, string> {
  const bySlug = new MultiMap<string, string>();
  for (const { path } of facts) {
    const slug = undatedSlug(path);
    if (slug !== undefined) bySlug.add(slug, path);
  }
  return bySlug;
}

/** `datedBySlug` brought up to date with one note's change (a write adds one name: no pass over every note). */
export function followDated(bySlug: MultiMap<string, string>, was: NoteFacts | undefined, now: NoteFacts | undefined): void {
  const slug = undatedSlug((was ?? now)!.path);
  if (slug === undefined) return;
  if (was) bySlug.remove(slug, was.path);
  if (now) {
    bySlug.add(slug, now.path);
    bySlug.sort(slug);
  }
}

/**
 * The note a name stands for: a stem or file name, else an undated slug (`judy` names the one note
 * whose stem is `YYYYMMDD-judy`; when several share it, the newest one not superseded). Undefined
 * when nothing bears the name.
 */
function notesNamedBy(root: string, name: string): Note | undefined {
  if (!name || name.startsWith('.')) return undefined;
  const byName = name.endsWith('.md') ? name : `${name}.md`;
  if (isNoteFile(root, byName)) {
    const n = readNoteFile(root, byName);
    if (n) return n;
    throw new ZkError('refused', `note ${byName} cannot be read (binary or not UTF-8)`);
  }
  const undated = notesWithSlug(root, name);
  if (!undated.length) return undefined;
  const notes = undated.flatMap((f) => readNoteFile(root, f) ?? []);
  // Unreadable ones (binary, not UTF-8) name nothing, as a resident process keeps no answer for them.
  if (!notes.length) return undefined;
  // History stays reachable by full name; the bare slug names the current belief: the note bearing
  // it that is not superseded (the newest, when hosts each wrote one), else the successor that took
  // the slug with a number when it replaced the holder on the same day (`judy-2` replacing `judy`).
  const current = newestCurrent(notes);
  if (current) return current;
  if (notes.length === 1) return sameSubjectSuccessor(root, notes[0], name) ?? notes[0];
  throw new ZkError('ambiguous_ref', `ambiguous ref: ${name} matches ${undated.join(', ')} (name one by its file name)`);
}

/**
 * The note whose title slugs to `slug` while its file keeps the name the earlier rule made of that
 * title: longer (`…-trust-store-on-every-build-agent.md`), or with an apostrophe split off
 * (`…-dana-s-trip.md`). Only names that could be such a name are read, to confirm by the title;
 * several such notes are ambiguous unless one alone is current.
 */
function noteNamedByEarlierRule(root: string, slug: string): Note | undefined {
  if (!slug) return undefined;
  const notes = listNoteFiles(root)
    .filter((name) => {
      const undated = undatedSlug(name);
      return undated !== undefined && couldBeEarlierName(undated, slug);
    })
    .flatMap((name) => readNoteFile(root, name) ?? [])
    .filter((n) => titleSlug(n.title) === slug && earlierSlug(n.title) === undatedSlug(n.path));
  const current = notes.filter((n) => !n.superseded_by);
  if (current.length === 1) return current[0];
  if (notes.length === 1) return notes[0];
  if (!notes.length) return undefined;
  throw new ZkError('ambiguous_ref', `ambiguous ref: ${slug} matches ${notes.map((n) => n.path).join(', ')} (name one by its file name)`);
}

/**
 * Whether the earlier rule could have named a note `name` whose title now slugs to `slug`: the name
 * was only cut later (cutting it as a title is cut gives `slug`), or `slug` is its head with some
 * `-` dropped where an apostrophe split a word. Cheap, on names alone; the title confirms.
 */
function couldBeEarlierName(name: string, slug: string): boolean {
  if (name.startsWith(slug)) return name !== slug && capSlug(name, MAX_TITLE_SLUG) === slug;
  let i = 0;
  let joined = false;
  for (const ch of slug) {
    if (name[i] === '-' && ch !== '-') {
      i++;
      joined = true;
    }
    if (!name.startsWith(ch, i)) return false;
    i += ch.length;
  }
  // A name that goes on past that head was cut later than the slug, so it is the longer of the two.
  return joined && (i === name.length || (name[i] === '-' && [...name].length > MAX_TITLE_SLUG));
}

/**
 * The latest successor of a superseded note when it took the same slug with a clash counter
 * (`judy-2` replacing `judy`). A number the writer chose (`mia-age-8`) is no counter: a counter
 * `-N` is only given once `-2` … `-(N-1)` were taken, so those names exist, live or archived.
 */
function sameSubjectSuccessor(root: string, note: Note, slug: string): Note | undefined {
  const next = successors(root, note).at(-1);
  const stem = next?.slug.replace(/^\d{8}-/, '');
  const n = stem?.startsWith(`${slug}-`) ? stem.slice(slug.length + 1) : '';
  if (!next || !/^[1-9]\d{0,3}$/.test(n) || Number(n) < 2) return undefined;
  const taken = slugsTaken(root, slug);
  for (let i = 2; i < Number(n); i++) if (!taken.has(`${slug}-${i}`)) return undefined;
  return next;
}

/**
 * The undated slugs beginning with `slug` that notes bear, live or archived (an archived copy may
 * carry a counter of its own, `-2`, which is taken as a name too: it only errs towards a counter).
 */
function slugsTaken(root: string, slug: string): Set<string> {
  let archived: string[] = [];
  try {
    archived = fs.readdirSync(sidecar(root).archive);
  } catch {
    // no archive yet
  }
  const taken = new Set<string>();
  for (const name of [...listNoteFiles(root), ...archived]) {
    const undated = undatedSlug(name);
    if (undated?.startsWith(slug)) taken.add(undated).add(undated.replace(/-\d+$/, ''));
  }
  return taken;
}

/**
 * The notes whose uuid starts with `prefix`: the grep port finds the files with a matching `uuid:`
 * line, and only those are read (and checked, since a body may hold such a line too).
 */
export function notesWithUuidPrefix(root: string, prefix: string): Note[] {
  const want = prefix.toLowerCase();
  const hex = want.replace(/[^0-9a-f-]/g, '');
  return candidateFiles(root, [`^uuid:[ \\t]*['"]?${hex}`], { fixed: false })
    .flatMap((name) => readNoteFile(root, name) ?? [])
    .filter((n) => n.uuid && n.uuid.toLowerCase().startsWith(want));
}

/** The note with exactly this uuid. */
export function noteByUuid(root: string, uuid: string): Note | undefined {
  const want = uuid.toLowerCase();
  return notesWithUuidPrefix(root, want).find((n) => n.uuid.toLowerCase() === want);
}

/** The notes that replaced `note`, in order (B, then C for A → B → C); stops at a missing link or a loop. */
export function successors(root: string, note: Note): Note[] {
  const chain: Note[] = [];
  const seen = new Set([note.uuid]);
  for (let at = note; at.superseded_by; ) {
    const next = noteByUuid(root, at.superseded_by);
    if (!next || seen.has(next.uuid)) break;
    chain.push(next);
    seen.add(next.uuid);
    at = next;
  }
  return chain;
}
