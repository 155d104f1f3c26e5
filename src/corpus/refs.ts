import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ZkError } from '../errors.js';
import { NOTE_FILES, rgPath } from '../search/rg.js';
import { isNoteFile, listNoteFiles, loadNotes, readNoteFile, type Note } from './notes.js';
import { isoDate, stemFor } from './slug.js';

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
  const undated = undatedMatches(root, r);
  if (undated.length === 1) {
    const n = readNoteFile(root, undated[0]);
    if (n) return n;
  }
  if (undated.length > 1) throw new ZkError('ambiguous_ref', `ambiguous ref: ${r} matches ${undated.join(', ')}`);
  throw new ZkError('not_found', `unknown ref: ${r}`);
}

/**
 * The notes named `YYYYMMDD-<slug>.md`. A folder listing may be stale on a network mount that
 * caches it (a note just written on another host is missing), so the names a recent note would
 * have (yesterday, today and tomorrow, for hosts in other time zones) are also checked one by one.
 */
function undatedMatches(root: string, slug: string): string[] {
  if (Buffer.byteLength(slug, 'utf8') > 240) return [];
  const names = new Set(listNoteFiles(root).filter((n) => n.length === slug.length + 12 && n.endsWith(`-${slug}.md`) && /^\d{8}-/.test(n)));
  for (const days of [-1, 0, 1]) {
    const name = `${stemFor(isoDate(new Date(Date.now() + days * 86_400_000)), slug)}.md`;
    if (!names.has(name) && isNoteFile(root, name)) names.add(name);
  }
  return [...names].sort();
}

/**
 * The notes whose uuid starts with `prefix`: ripgrep finds the files with a matching `uuid:` line,
 * and only those are read (and checked, since a body may hold such a line too). Without ripgrep,
 * every note is read.
 */
export function notesWithUuidPrefix(root: string, prefix: string): Note[] {
  const want = prefix.toLowerCase();
  const hex = want.replace(/[^0-9a-f-]/g, '');
  const rg = spawnSync(rgPath(), ['--files-with-matches', '--null', '--ignore-case', '-e', `^uuid:[ \\t]*['"]?${hex}`, ...NOTE_FILES], {
    cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
  });
  const candidates = rg.status === 0 || rg.status === 1
    ? rg.stdout.split('\0').filter(Boolean).map((l) => path.basename(l)).filter((name) => isNoteFile(root, name)).flatMap((name) => readNoteFile(root, name) ?? [])
    : loadNotes(root);
  return candidates.filter((n) => n.uuid && n.uuid.toLowerCase().startsWith(want));
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
