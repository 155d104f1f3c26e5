import { now } from '../../context.js';
import { ZkError } from '../../errors.js';
import { appendAllOrNothing } from '../lock/append.js';
import { rewriteKeys } from './keys.js';
import { mergeFragment } from '../note/format.js';
import { withCorpusLock } from '../lock/lock.js';
import { readNoteFile, type Note } from '../note/notes.js';
import { resolveRef } from '../graph/refs.js';
import { parseDateOption } from '../note/slug.js';
import { momentText } from '../note/moments.js';
import { defaultSource } from '../note/source.js';
import { trace } from '../trace/trace.js';
import { warn } from '../warn.js';
import { checkSize } from './limits.js';

export interface MergeOptions {
  source?: string;
  date?: string;
  /**
   * Where the fragment comes from (the document `ingest accept --merge` read it in): listed, with
   * the fragment's date, under FRAGMENT_SOURCES in the note's frontmatter.
   */
  origin?: Record<string, string | undefined>;
}

/** The frontmatter list of where a note's merged fragments come from (docs/format.md#merge-fragments). */
export const FRAGMENT_SOURCES = 'fragment_sources';

/** The note's list of fragment sources with one more entry (a value set by hand that is no list is kept as its first entry). */
function withSource(note: Note, entry: Record<string, string>): unknown[] {
  const listed = note.parsed.frontmatter[FRAGMENT_SOURCES];
  return [...(Array.isArray(listed) ? listed : listed === undefined || listed === null ? [] : [listed]), entry];
}

/**
 * Append a dated fragment to a note under the corpus lock: all of it or nothing. With an origin,
 * the fragment and its entry in the frontmatter land in one replacement of the file; otherwise the
 * fragment is appended (see appendAllOrNothing).
 */
export async function appendFragment(root: string, ref: string, fragment: string, o: MergeOptions = {}): Promise<Note> {
  const text = (fragment ?? '').trim();
  if (!text) throw new ZkError('usage', 'empty fragment: nothing to merge');
  checkSize('fragment', text);
  // A fragment records the moment it was merged (an `--as-of` answer tells fragments of one day apart); a given date, that day.
  const date = o.date ? parseDateOption(o.date) : momentText(now());
  const source = defaultSource(o.source);
  const origin = o.origin && Object.fromEntries(Object.entries({ date, ...o.origin }).filter((e): e is [string, string] => e[1] !== undefined));
  return withCorpusLock(root, async (lock) => {
    const note = resolveRef(root, ref);
    // Allowed (history may be annotated), but said: the fragment does not reach the current note.
    if (note.superseded_by) warn(`${note.path} is superseded (by ${note.superseded_by}): the fragment went to this older note`);
    const appended = mergeFragment(date, text, source, note.parsed.eol);
    if (origin && !note.parsed.yamlError) {
      await rewriteKeys(root, lock, note, (n) => ({ [FRAGMENT_SOURCES]: withSource(n, origin) }), { append: appended });
    } else {
      if (origin) warn(`${note.path} has frontmatter that is not valid YAML: where the fragment comes from is kept in the trace only`);
      appendAllOrNothing(root, lock, note.path, appended);
    }
    trace(root, 'merge', { path: note.path, uuid: note.uuid, source: source ?? null, bytes: Buffer.byteLength(text), ...(origin ? { origin } : {}) });
    return readNoteFile(root, note.path) ?? note;
  });
}
