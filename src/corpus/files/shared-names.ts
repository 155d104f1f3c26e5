import { current, hasContext } from '../../context.js';

/**
 * The note names a long-running process listed last, by root: a listing gives back the very
 * strings of the last one for the names they share. Every answer the process keeps of a note (its
 * metadata, its links, the search index's stamps) is built from a listing of its own; without
 * this, each held a copy of every name (some 100 MB at 1,000,000 notes).
 */
export class SharedNames {
  private readonly last = new Map<string, readonly string[]>();

  /**
   * `names` with each name the last listing of `root` had replaced by its string; names that are
   * not in order (not a listing) are given back as they are, and kept for nothing.
   */
  share(root: string, names: string[]): string[] {
    for (let i = 1; i < names.length; i++) if (names[i - 1] > names[i]) return names;
    const last = this.last.get(root) ?? [];
    let j = 0;
    for (let i = 0; i < names.length; i++) {
      while (j < last.length && last[j] < names[i]) j++;
      if (last[j] === names[i]) names[i] = last[j];
    }
    this.last.set(root, names.slice());
    return names;
  }

  close(): void {
    this.last.clear();
  }
}

/** A listing's names (or the index's), shared with the last listing when a long-running process keeps one (see `SharedNames`). */
export function sharedNames(root: string, names: string[]): string[] {
  return (hasContext() && current().resident?.part(SharedNames)?.share(root, names)) || names;
}
