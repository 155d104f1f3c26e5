import { ZkError } from '../errors.js';
import { candidateFiles } from './grep.js';
import { isNoteFile, listNoteFiles, readNoteFile, type Note } from './notes.js';

const UUID_PREFIX = /^[0-9a-f]{8}[0-9a-f-]*$/i;

/**
 * Resolve a ref (file name, stem, uuid or uuid prefix of 8+ hex digits) to a note in the root.
 * A ref is a name, never a path: anything that could point elsewhere is refused.
 */
export function resolveRef(root: string, ref: string): Note {
  const r = ref.trim();
  if (!r) throw new ZkError('usage', 'empty ref: name a note by uuid, stem or file name');
  if (/[/\\\0]/.test(r) || r.startsWith('.')) {
    throw new ZkError('invalid_ref', `invalid ref: ${JSON.stringify(ref)} (a ref names a note in the corpus root, not a path)`);
  }
  const byName = r.endsWith('.md') ? r : `${r}.md`;
  if (isNoteFile(root, byName)) {
    const n = readNoteFile(root, byName);
    if (n) return n;
    throw new ZkError('refused', `note ${byName} cannot be read (binary or not UTF-8)`);
  }
  if (UUID_PREFIX.test(r)) {
    const want = r.toLowerCase();
    const hits = notesWithUuidPrefix(root, want);
    if (hits.length === 1) return hits[0];
    if (hits.length > 1) {
      throw new ZkError('ambiguous_ref', `ambiguous ref: ${r} matches ${hits.map((n) => n.path).join(', ')}`);
    }
  }
  // Convenience: an undated slug (`judy`) names the one note whose stem is `YYYYMMDD-judy`.
  const undated = listNoteFiles(root).filter((n) => n.length === r.length + 12 && n.endsWith(`-${r}.md`) && /^\d{8}-/.test(n));
  if (undated.length === 1) {
    const n = readNoteFile(root, undated[0]);
    if (n) return n;
  }
  if (undated.length > 1) throw new ZkError('ambiguous_ref', `ambiguous ref: ${r} matches ${undated.join(', ')}`);
  throw new ZkError('not_found', `unknown ref: ${r}`);
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
