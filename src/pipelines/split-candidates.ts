import { readNoteFile, type Note } from '../corpus/note/notes.js';
import { listNotes } from '../corpus/ops/list.js';

export const DEFAULT_SPLIT_CANDIDATES = 10;

/** The notes most in need of splitting: the largest first (superseded notes left out). No LLM. */
export function splitCandidates(root: string, top = DEFAULT_SPLIT_CANDIDATES): Note[] {
  // Sizes come from the metadata cache: only the notes chosen are read.
  const largest = [...listNotes(root)].sort((a, b) => b.size - a.size || a.path.localeCompare(b.path)).slice(0, top);
  return largest.flatMap((m) => readNoteFile(root, m.path) ?? []);
}
