import fs from 'node:fs';
import path from 'node:path';
import { firstHeading, parseNoteText, type ParsedText } from './format.js';
import { isKind, type Kind } from './kinds.js';
import { DATED_STEM } from './slug.js';
import { warn } from '../warn.js';

import { listNoteFiles } from '../files/note-files.js';
import { momentMs, momentText } from './moments.js';

/** A note as every JSON output shows it (docs/cli.md). */
export interface NoteInfo {
  uuid: string;
  slug: string;
  path: string;
  title: string;
  date: string;
  kind: Kind | null;
  author: string | null;
  superseded_by: string | null;
}

/** A note read from disk: its public fields plus what the library needs to work on it. */
export interface Note extends NoteInfo {
  file: string;
  raw: string;
  parsed: ParsedText;
  supersedes: string[];
  /** When it was superseded, archived, and what time it holds true for, as its frontmatter says (docs/format.md#time). */
  times: NoteTimes;
  size: number;
  mtimeMs: number;
}

/** The frontmatter keys that say when: each a day or a moment as written (src/corpus/note/moments.ts), or null. */
export interface NoteTimes {
  superseded_at: string | null;
  archived_at: string | null;
  valid_from: string | null;
  valid_until: string | null;
}

// The BOM is kept in the text, so a rewrite made from it puts back exactly the bytes it found.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decode a note file; undefined (with a warning) for binary or non-UTF-8 content. */
export function decodeNote(buf: Buffer, name: string): string | undefined {
  if (buf.includes(0)) {
    warn(`skipping ${name}: binary file`);
    return undefined;
  }
  try {
    return decoder.decode(buf);
  } catch {
    warn(`skipping ${name}: not valid UTF-8`);
    return undefined;
  }
}

/** A day or moment from the frontmatter, kept as written (a YAML timestamp read as a Date gives its ISO form). */
function when(v: unknown): string | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : momentText(v.getTime()).replace(/T00:00:00Z$/, '');
  return typeof v === 'string' || typeof v === 'number' ? str(v) : null;
}

function str(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'object') return null;
  const s = String(v).trim();
  return s ? s : null;
}

/** A day or moment the tool can read, as written; undefined for anything else. */
const readable = (text: string | null | undefined): string | undefined => (text && momentMs(text) !== undefined ? text : undefined);

/** The frontmatter keys that say when (docs/format.md#time). */
export const DATE_KEYS = ['date', 'superseded_at', 'archived_at', 'valid_from', 'valid_until'] as const;
export type DateKey = (typeof DATE_KEYS)[number];

/**
 * The date keys of a note's frontmatter that hold something that is no day or moment
 * (`2026-02-30`, `yesterday`, a list), with the value as written: each is read as if it were
 * absent (a `date` as the file name's date), and `tend check` reports it.
 */
export function unreadDates(frontmatter: Record<string, unknown>): { key: DateKey; value: string }[] {
  return DATE_KEYS.flatMap((key) => {
    const v = frontmatter[key];
    if (v === null || v === undefined) return [];
    const text = typeof v === 'string' || typeof v === 'number' || v instanceof Date ? when(v) : JSON.stringify(v);
    return text && !readable(text) ? [{ key, value: text }] : [];
  });
}

/** Build the Note from a file's text. */
export function noteFromText(root: string, file: string, raw: string, size: number, mtimeMs: number): Note {
  const name = path.basename(file);
  const stem = name.replace(/\.md$/, '');
  const parsed = parseNoteText(raw);
  if (parsed.yamlError) warn(`${name}: invalid frontmatter (${parsed.yamlError}); read as plain text`);
  const fm = parsed.frontmatter;
  const dated = DATED_STEM.exec(stem);
  const kind = str(fm.kind);
  const supersedes = fm.supersedes;
  return {
    uuid: str(fm.uuid) ?? '',
    slug: stem,
    path: name,
    title: str(fm.title) ?? firstHeading(parsed.body) ?? stem,
    // A date that cannot be read gives way to the file name's: never "no date", which would date the note before everything.
    date: readable(str(fm.date)) ?? readable(dated && `${dated[1]}-${dated[2]}-${dated[3]}`) ?? '',
    kind: isKind(kind) ? kind : null,
    author: str(fm.author),
    superseded_by: str(fm.superseded_by),
    file,
    raw,
    parsed,
    supersedes: Array.isArray(supersedes) ? supersedes.map(String) : supersedes ? [String(supersedes)] : [],
    times: { superseded_at: when(fm.superseded_at), archived_at: when(fm.archived_at), valid_from: when(fm.valid_from), valid_until: when(fm.valid_until) },
    size,
    mtimeMs,
  };
}

/** The public JSON shape of a note. */
export function noteInfo(n: NoteInfo): NoteInfo {
  return {
    uuid: n.uuid,
    slug: n.slug,
    path: n.path,
    title: n.title,
    date: n.date,
    kind: n.kind,
    author: n.author,
    superseded_by: n.superseded_by,
  };
}

/** Read one note file; undefined when it is binary, unreadable or gone. */
export function readNoteFile(root: string, name: string): Note | undefined {
  const file = path.join(root, name);
  let buf: Buffer;
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
    buf = fs.readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') warn(`skipping ${name}: ${(err as Error).message}`);
    return undefined;
  }
  const raw = decodeNote(buf, name);
  if (raw === undefined) return undefined;
  return noteFromText(root, file, raw, st.size, st.mtimeMs);
}

/** Every readable note of the corpus, in file-name order. */
export function loadNotes(root: string): Note[] {
  const notes: Note[] = [];
  for (const name of listNoteFiles(root)) {
    const n = readNoteFile(root, name);
    if (n) notes.push(n);
  }
  return notes;
}
