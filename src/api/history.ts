import { gitLog, gitLogHolding, type LogEntry } from '../adapters/git-log.js';
import { ZkError } from '../errors.js';
import { noteInfo, type Note, type NoteInfo } from '../corpus/note/notes.js';
import { candidateFiles } from '../corpus/graph/grep.js';
import { noteByUuid, resolveRef } from '../corpus/graph/refs.js';
import { supersession, type ChainNote } from '../corpus/graph/supersession.js';
import fs from 'node:fs';
import path from 'node:path';
import { readNoteFile } from '../corpus/note/notes.js';
import { sidecar } from '../corpus/files/paths.js';

// A corpus's history as git holds it: what was committed, by whom, and why (the tool's commits
// say what they did in their messages). For one note, its place among its versions too.

/** The key a split child carries: its parent's uuid (written by src/pipelines/split.ts). */
const SPLIT_FROM = 'split_from';

export interface LogRequest {
  /** At most this many commits, newest first. */
  limit?: number;
}

export interface LogResult {
  /** The note whose history this is; absent for the whole corpus. */
  note?: NoteInfo;
  commits: LogEntry[];
  /** For a note: the notes that replaced it, oldest first, archived ones too (the last is the current belief unless archived). */
  chain?: ChainNote[];
  /** For a note: the notes it replaced, live or archived. */
  replaces?: ChainNote[];
  /** For a note: the note it was split from, and the notes split from it. */
  split?: { parent: NoteInfo | null; children: NoteInfo[] };
}

function splitFrom(n: Note): string {
  return String(n.parsed.frontmatter[SPLIT_FROM] ?? '')
    .trim()
    .toLowerCase();
}

function family(root: string, note: Note): LogResult['split'] {
  const parentId = splitFrom(note);
  const parent = parentId ? noteByUuid(root, parentId) : undefined;
  const own = note.uuid.toLowerCase();
  // Only the notes that mention the uuid are read: a child names its parent's uuid in `split_from`.
  const children = own
    ? candidateFiles(root, [own], { fixed: true })
        .flatMap((name) => readNoteFile(root, name) ?? [])
        .filter((n) => splitFrom(n) === own)
    : [];
  return { parent: parent ? noteInfo(parent) : null, children: children.map(noteInfo) };
}

/** The note `ref` names (live or archived), its split parent and the notes split from it. */
export function splitFamily(root: string, ref: string): NonNullable<LogResult['split']> {
  return family(root, findNote(root, ref).note)!;
}

/** The note a ref names: a live one, else an archived one named by uuid (or 8+ of its digits), stem or file name. */
function findNote(root: string, ref: string): { note: Note; file: string } {
  try {
    const note = resolveRef(root, ref);
    return { note, file: note.path };
  } catch (err) {
    if (!(err instanceof ZkError) || err.code !== 'not_found') throw err;
    const dir = sidecar(root).archive;
    const want = ref.replace(/^\.archive\//, '').toLowerCase();
    const names = fs.existsSync(dir)
      ? fs
          .readdirSync(dir)
          .filter((n) => n.endsWith('.md'))
          .sort()
      : [];
    for (const name of names) {
      const n = readNoteFile(dir, name);
      const uuid = n?.uuid.toLowerCase() ?? '';
      const stem = name.toLowerCase().replace(/\.md$/, '');
      const named =
        stem === want.replace(/\.md$/, '') ||
        stem.replace(/^\d{8}-/, '') === want ||
        uuid === want ||
        (want.length >= 8 && /^[0-9a-f-]+$/.test(want) && uuid.startsWith(want));
      if (n && named) return { note: n, file: path.posix.join('.archive', name) };
    }
    throw err;
  }
}

/**
 * The frontmatter line that gives a note its uuid, as an extended regular expression for git: in
 * any case, maybe quoted, as YAML allows (src/corpus/note/notes.ts reads it as YAML).
 */
function uuidLine(uuid: string): string {
  const letters = [...uuid].map((ch) => (/[a-z]/i.test(ch) ? `[${ch.toLowerCase()}${ch.toUpperCase()}]` : /[.[\]()*+?{}|^$\\]/.test(ch) ? `\\${ch}` : ch));
  return `^uuid:[[:space:]]*["']?${letters.join('')}["']?[[:space:]]*$`;
}

/**
 * The commits of the corpus, or of one note: those of the files that held its uuid (through
 * renames and its move to the archive, and none of another note that had its file name), or,
 * for a note without a uuid, those of its file as git follows it.
 */
export async function log(root: string, ref?: string, o: LogRequest = {}): Promise<LogResult> {
  if (ref === undefined) {
    const commits = await gitLog(root, { limit: o.limit });
    if ('skipped' in commits) throw new ZkError('refused', `no history: ${commits.skipped}`);
    return { commits };
  }
  const { note, file } = findNote(root, ref);
  const commits = note.uuid ? await gitLogHolding(root, uuidLine(note.uuid), { limit: o.limit }) : await gitLog(root, { file, limit: o.limit });
  if ('skipped' in commits) throw new ZkError('refused', `no history: ${commits.skipped}`);
  return { note: { ...noteInfo(note), path: file }, commits, ...supersession(root, note), split: family(root, note) };
}
