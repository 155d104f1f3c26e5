import type { Note } from '../corpus/notes.js';
import { listNotes } from '../corpus/ops.js';

export const DEFAULT_SPLIT_CANDIDATES = 10;

/** The notes most in need of splitting: the largest first (superseded notes left out). No LLM. */
export function splitCandidates(root: string, top = DEFAULT_SPLIT_CANDIDATES): Note[] {
  return listNotes(root).sort((a, b) => b.size - a.size || a.path.localeCompare(b.path)).slice(0, top);
}
