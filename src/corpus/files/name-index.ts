import fs from 'node:fs';
import path from 'node:path';
import { current } from '../../context.js';
import { isNoteName } from './note-files.js';
import { sidecar } from './paths.js';

// The names a write checks, without listing or reading every note: which notes hold an undated
// slug, and which have a title of a given key (docs/format.md#similar-titles). Kept beside the
// search index (the NoteCacheFile port), in 4,096 small files, each a list of `[key, name]` lines
// for the keys that hash to it: a look-up reads one file (about 30 KB at 1,000,000 notes) however
// large the corpus grows.
//
// Derived, never the truth, and only ever added to: the tool adds a line once a note it wrote is
// on disk (any process, one O_APPEND write, as the change journal does), and every refresh of the
// search index adds the notes it read, so a note made, renamed or retitled by another program is
// known once the next search, `index` or resident server has seen it. A line that no longer holds
// (a note deleted, renamed or retitled since) is dropped by the caller, which checks every name it
// is given against the note itself. The look-up answers only once a build from every note has
// finished (the `complete` file, written by a rebuild of the index), and only where the index is
// kept beside the corpus on a local disk: on a network file system it is kept per host, and other
// hosts' notes would never be added.

const BUCKETS = 4096;
const COMPLETE = 'complete';

/** A key's bucket file name: FNV-1a of the key, 12 bits, three hex digits. */
function bucketOf(key: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return ((h >>> 0) % BUCKETS).toString(16).padStart(3, '0');
}

/** The folder of the name index of `root`, or undefined when there is nowhere to keep one. */
function namesDir(root: string): string | undefined {
  return current().noteCache?.(root, 'names');
}

/** The key of a note's undated slug. */
export const slugKey = (slug: string) => `s ${slug}`;

/** Whether `root` has a name index to add to (built, or being built). */
export function namesKept(root: string): boolean {
  const dir = namesDir(root);
  return dir !== undefined && fs.existsSync(dir);
}

/** What the index knows under `key` from one bucket's text. */
function namesIn(text: string, key: string): string[] {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const [k, name] = JSON.parse(line) as unknown[];
      // Only a file name directly in the root: a line planted in the index leads nowhere else.
      if (k === key && typeof name === 'string' && isNoteName(name) && !/[\\/]/.test(name)) out.add(name);
    } catch {
      // a torn line (a writer that died mid-append) names nothing
    }
  }
  return [...out];
}

/**
 * The note names the index holds under `key`, not yet checked against the notes; undefined when
 * there is no complete index to ask (the caller then finds them as it would without one).
 */
export function indexedNames(root: string, key: string): string[] | undefined {
  const dir = namesDir(root);
  if (!dir || !dir.startsWith(sidecar(root).zk + path.sep) || !fs.existsSync(path.join(dir, COMPLETE))) return undefined;
  try {
    return namesIn(fs.readFileSync(path.join(dir, bucketOf(key)), 'utf8'), key);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    return undefined;
  }
}

/**
 * Add `[key, name]` lines the index lacks. `fresh`: the index is being built anew (the lines are
 * not compared with what the buckets hold). Never throws: a line lost costs a look-up only until
 * the next refresh that reads the note.
 */
export function addNames(root: string, entries: Iterable<readonly [key: string, name: string]>, o: { fresh?: boolean } = {}): void {
  const dir = namesDir(root);
  if (!dir) return;
  const byBucket = new Map<string, Map<string, string>>();
  for (const [key, name] of entries) {
    const line = `${JSON.stringify([key, name])}\n`;
    const bucket = bucketOf(key);
    const lines = byBucket.get(bucket) ?? new Map<string, string>();
    lines.set(line, key);
    byBucket.set(bucket, lines);
  }
  if (!byBucket.size) return;
  try {
    // Outside a build, a folder never built is left absent: it would answer nothing anyway.
    if (!o.fresh && !namesKept(root)) return;
    fs.mkdirSync(dir, { recursive: true });
    for (const [bucket, lines] of byBucket) {
      const file = path.join(dir, bucket);
      let held = '';
      if (!o.fresh) {
        try {
          held = fs.readFileSync(file, 'utf8');
        } catch {
          // no bucket yet
        }
      }
      const missing = [...lines.keys()].filter((line) => !held.includes(line));
      if (missing.length) fs.appendFileSync(file, missing.join(''));
    }
  } catch {
    // derived data: the next refresh that reads these notes adds them again
  }
}

/** Start a build from every note: what the folder held is dropped, and look-ups wait for `namesComplete`. */
export function startNames(root: string): void {
  const dir = namesDir(root);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

/** Every note has been added since `startNames`: look-ups may trust the index. */
export function namesComplete(root: string): void {
  const dir = namesDir(root);
  if (!dir) return;
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, COMPLETE), '');
  } catch {
    // not kept: look-ups go on without it
  }
}
